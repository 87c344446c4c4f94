ALTER TABLE "namespaces" ADD COLUMN "live_entries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Backfill: the live entries each namespace holds now; from here on every head write keeps it.
UPDATE "namespaces" SET "live_entries" = (
  SELECT count(*) FROM "entries" WHERE "entries"."namespace_id" = "namespaces"."id" AND NOT "entries"."deleted"
);
