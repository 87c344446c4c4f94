CREATE TABLE "renames" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"namespace_id" uuid NOT NULL,
	"from_path" text NOT NULL,
	"from_version" integer NOT NULL,
	"to_path" text NOT NULL,
	"to_version" integer NOT NULL,
	"op_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "renames" ADD CONSTRAINT "renames_namespace_id_namespaces_id_fk" FOREIGN KEY ("namespace_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "renames_namespace_from" ON "renames" USING btree ("namespace_id","from_path","from_version");--> statement-breakpoint
CREATE INDEX "renames_namespace_to" ON "renames" USING btree ("namespace_id","to_path","to_version");