DROP INDEX "entries_namespace_fold_key_prefix";--> statement-breakpoint
DROP INDEX "entries_namespace_fold_key_live";--> statement-breakpoint
CREATE UNIQUE INDEX "entries_namespace_fold_key_live" ON "entries" USING btree ("namespace_id","fold_key" text_pattern_ops) WHERE NOT "entries"."deleted";