CREATE INDEX "versions_namespace_path_purged" ON "versions" USING btree ("namespace_id","path") WHERE "versions"."purged_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_base_version_min" CHECK ("conflicts"."base_version" >= 0);--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_head_version_min" CHECK ("conflicts"."head_version" >= 0);--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_cursor_min" CHECK ("conflicts"."cursor" >= 1);--> statement-breakpoint
ALTER TABLE "conflicts" ADD CONSTRAINT "conflicts_resolved_version_min" CHECK ("conflicts"."resolved_version" >= 0);--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_version_min" CHECK ("entries"."version" >= 1);--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_size_bytes_min" CHECK ("entries"."size_bytes" >= 0);--> statement-breakpoint
ALTER TABLE "entries" ADD CONSTRAINT "entries_cursor_min" CHECK ("entries"."cursor" >= 1);--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_cursor_min" CHECK ("namespaces"."cursor" >= 0);--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_live_entries_min" CHECK ("namespaces"."live_entries" >= 0);--> statement-breakpoint
ALTER TABLE "renames" ADD CONSTRAINT "renames_from_version_min" CHECK ("renames"."from_version" >= 1);--> statement-breakpoint
ALTER TABLE "renames" ADD CONSTRAINT "renames_to_version_min" CHECK ("renames"."to_version" >= 1);--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_version_min" CHECK ("versions"."version" >= 1);--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_size_bytes_min" CHECK ("versions"."size_bytes" >= 0);--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_parent_version_min" CHECK ("versions"."parent_version" >= 1);--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_base_version_min" CHECK ("versions"."base_version" >= 0);--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_cursor_min" CHECK ("versions"."cursor" >= 1);