ALTER TABLE "versions" ADD COLUMN "purged_by" text;--> statement-breakpoint
ALTER TABLE "versions" ADD COLUMN "purged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "versions" ADD COLUMN "purge_reason" text;