/** Who wrote a version: named in merge and conflict results so the client can say "merged with alice's edit". */
import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import { versions } from "../db/schema.js";

/** The author name of version `version` of `path` ("" when there is no such version). */
export async function readVersionAuthor(tx: Tx, namespaceId: string, path: string, version: number): Promise<string> {
  const [row] = await tx
    .select({ author: versions.authorName })
    .from(versions)
    .where(and(eq(versions.namespaceId, namespaceId), eq(versions.path, path), eq(versions.version, version)));
  return row?.author ?? "";
}
