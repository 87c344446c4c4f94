-- teammem_fast_forward (migration 0011) without its NOTIFY: the same signature, the same writes,
-- the same result. PostgreSQL serializes the commits of transactions that NOTIFY (a database-wide
-- lock held until the commit record is flushed), so concurrent fast-forwards could not share a WAL
-- flush. The server now notifies the returned "written_cursor" after the commit
-- (apps/server/src/store/change-notifier.ts); a notification lost between the two is repaired from
-- the change feed (apps/server/src/live/README.md). A server older than this migration still calls
-- the function but no longer notifies its fast-forwards: upgrade every instance.
CREATE OR REPLACE FUNCTION "teammem_fast_forward"(
  "p_namespace_id" uuid, "p_op_id" text, "p_path" text, "p_base" integer, "p_content" text, "p_sha256" text,
  "p_size_bytes" integer, "p_request_sha256" text, "p_result" jsonb, "p_author_id" uuid, "p_author_name" text,
  "p_client_id" text)
  RETURNS TABLE ("stored_request_sha256" text, "stored_result" jsonb, "written_cursor" bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_cursor bigint;
  v_request_sha256 text;
  v_result jsonb;
  v_version integer;
  v_deleted boolean;
  v_sha256 text;
BEGIN
  PERFORM 1 FROM "namespaces" WHERE "id" = "p_namespace_id" FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT n."cursor", o."request_sha256", o."result", e."version", e."deleted", e."sha256"
    INTO v_cursor, v_request_sha256, v_result, v_version, v_deleted, v_sha256
    FROM "namespaces" n
    LEFT JOIN "operations" o ON o."namespace_id" = n."id" AND o."op_id" = "p_op_id"
    LEFT JOIN "entries" e ON e."namespace_id" = n."id" AND e."path" = "p_path"
    WHERE n."id" = "p_namespace_id";
  IF v_request_sha256 IS NOT NULL THEN
    RETURN QUERY SELECT v_request_sha256, v_result, NULL::bigint;
    RETURN;
  END IF;
  IF v_version IS DISTINCT FROM "p_base" OR v_deleted OR v_sha256 IS NOT DISTINCT FROM "p_sha256" THEN
    RETURN QUERY SELECT NULL::text, NULL::jsonb, NULL::bigint;
    RETURN;
  END IF;
  v_cursor := v_cursor + 1;
  UPDATE "namespaces" SET "cursor" = v_cursor,
    "live_entries" = "live_entries" + CASE WHEN "p_content" IS NULL THEN -1 ELSE 0 END
    WHERE "id" = "p_namespace_id";
  INSERT INTO "versions" ("namespace_id", "path", "version", "kind", "deleted", "content", "sha256", "size_bytes",
                          "parent_version", "base_version", "author_id", "author_name", "client_id", "op_id", "cursor")
    VALUES ("p_namespace_id", "p_path", "p_base" + 1, CASE WHEN "p_content" IS NULL THEN 'delete' ELSE 'write' END,
            "p_content" IS NULL, "p_content", "p_sha256", "p_size_bytes", "p_base", NULL, "p_author_id", "p_author_name",
            "p_client_id", "p_op_id", v_cursor);
  UPDATE "entries" SET "version" = "p_base" + 1, "deleted" = "p_content" IS NULL, "content" = "p_content",
      "sha256" = "p_sha256", "size_bytes" = "p_size_bytes", "cursor" = v_cursor, "updated_at" = now()
    WHERE "namespace_id" = "p_namespace_id" AND "path" = "p_path";
  INSERT INTO "operations" ("namespace_id", "op_id", "request_sha256", "result")
    VALUES ("p_namespace_id", "p_op_id", "p_request_sha256", "p_result" || jsonb_build_object('cursor', v_cursor));
  RETURN QUERY SELECT NULL::text, NULL::jsonb, v_cursor;
END
$$;
