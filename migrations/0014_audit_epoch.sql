ALTER TABLE "audit_events" ADD COLUMN "epoch" uuid;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "previous_epoch" uuid;