CREATE TABLE "bypasses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"status" text NOT NULL,
	"fingerprint" text NOT NULL,
	"fingerprint_key_id" integer NOT NULL,
	"rule_id" text NOT NULL,
	"namespace" text NOT NULL,
	"path" text NOT NULL,
	"line" integer NOT NULL,
	"column" integer,
	"reason" text NOT NULL,
	"reason_text" text,
	"client_id" text,
	"requested_by_id" uuid,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"note" text,
	"revoked_by" text,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "bypass_policy" text DEFAULT 'approval' NOT NULL;--> statement-breakpoint
ALTER TABLE "bypasses" ADD CONSTRAINT "bypasses_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bypasses_team_live_fingerprint" ON "bypasses" USING btree ("team_id","fingerprint_key_id","fingerprint") WHERE "bypasses"."status" IN ('pending', 'approved');--> statement-breakpoint
CREATE INDEX "bypasses_team_status_requested" ON "bypasses" USING btree ("team_id","status","requested_at");--> statement-breakpoint
CREATE INDEX "bypasses_team_requester" ON "bypasses" USING btree ("team_id","requested_by_id","requested_at");