ALTER TABLE "conflicts" DROP CONSTRAINT "conflicts_author_id_principals_id_fk";
--> statement-breakpoint
ALTER TABLE "versions" DROP CONSTRAINT "versions_author_id_principals_id_fk";
--> statement-breakpoint
-- What the two foreign keys' ON DELETE SET NULL did, without their KEY SHARE lock on the author's
-- principal row at every version or conflict inserted (schema.ts, versions.author_id): deleting
-- principals nulls the author of their versions and conflicts, in the deleting statement.
CREATE FUNCTION "teammem_principals_forget_authored"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "versions" SET "author_id" = NULL WHERE "author_id" IN (SELECT "id" FROM "gone");
  UPDATE "conflicts" SET "author_id" = NULL WHERE "author_id" IN (SELECT "id" FROM "gone");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "principals_forget_authored" AFTER DELETE ON "principals"
  REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "teammem_principals_forget_authored"();
