DROP INDEX "audit_events_team_created";--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "team_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "fingerprint_key_id" integer;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "token_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "target_user" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "role" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "previous_role" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "result_version" integer;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "conflict_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "bypass_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "reason_text" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "policy" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "count" integer;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "remote_address" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "period_end" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "audit_events_team_id" ON "audit_events" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "audit_events_created" ON "audit_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "audit_events_findings" ON "audit_events" USING gin ("findings" jsonb_path_ops);--> statement-breakpoint
ALTER TABLE "audit_events" RENAME COLUMN "principal_id" TO "actor_id";--> statement-breakpoint
ALTER TABLE "audit_events" RENAME COLUMN "principal_name" TO "actor_name";--> statement-breakpoint
-- Token events kept the token id in "code" before "token_id" existed: move it to its own field.
UPDATE "audit_events" SET "token_id" = "code"::uuid, "code" = NULL
  WHERE "kind" IN ('token_issued', 'token_revoked') AND "code" ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';--> statement-breakpoint
-- Append-only: UPDATE, DELETE and TRUNCATE of audit events are refused, except the deletes made
-- inside teammem_purge_audit_events (the retention job), which raises a transaction-local flag.
CREATE FUNCTION "teammem_audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('teammem.audit_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "teammem_audit_events_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "teammem_audit_events_append_only"();--> statement-breakpoint
-- The retention job's one door: deletes the events created before "cutoff" and returns how many per
-- team (team_id null: events of no team). Operators may REVOKE UPDATE, DELETE, TRUNCATE on
-- audit_events from the server's role and make this function SECURITY DEFINER of another role.
CREATE FUNCTION "teammem_purge_audit_events"("cutoff" timestamptz)
  RETURNS TABLE ("team_id" uuid, "purged" bigint) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('teammem.audit_purge', 'on', true);
  RETURN QUERY
    WITH gone AS (DELETE FROM "audit_events" e WHERE e."created_at" < "cutoff" RETURNING e."team_id")
    SELECT gone."team_id", count(*)::bigint FROM gone GROUP BY gone."team_id";
  PERFORM set_config('teammem.audit_purge', 'off', true);
END
$$;
