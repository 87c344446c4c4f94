CREATE TABLE "team_fingerprint_keys" (
	"team_id" uuid NOT NULL,
	"key_id" integer NOT NULL,
	"key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_fingerprint_keys_team_id_key_id_pk" PRIMARY KEY("team_id","key_id")
);
--> statement-breakpoint
ALTER TABLE "team_fingerprint_keys" ADD CONSTRAINT "team_fingerprint_keys_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The server-wide fingerprint key gave way to per-team keys (team_fingerprint_keys).
DELETE FROM "server_settings" WHERE "key" = 'fingerprint_key';
