/** Reads of one namespace: an entry's head, its history, one version, conflict records. */
import type { ConflictRecord, EntryResponse, VersionInfo } from "@teammem/protocol";
import { and, asc, desc, eq, inArray, or } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { conflicts, entries, renames, versions } from "../db/schema.js";

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The head of `path`, or null when the path never existed: {@link readEntries} of the one path (one query, the head's author joined). */
export async function readEntry(db: Db, namespaceId: string, path: string): Promise<Omit<EntryResponse, "server"> | null> {
  return (await readEntries(db, namespaceId, [path]))[0] ?? null;
}

/** The heads of `paths` that have an entry, in the order of `paths` (one query; at most 200 paths by the protocol). */
export async function readEntries(db: Db, namespaceId: string, paths: readonly string[]): Promise<Omit<EntryResponse, "server">[]> {
  if (paths.length === 0) return [];
  const rows = await db
    .select({ entry: entries, author: versions.authorName })
    .from(entries)
    .leftJoin(versions, and(eq(versions.namespaceId, entries.namespaceId), eq(versions.path, entries.path), eq(versions.version, entries.version)))
    .where(and(eq(entries.namespaceId, namespaceId), inArray(entries.path, [...paths])));
  const byPath = new Map(rows.map((r) => [r.entry.path, r]));
  return [...new Set(paths)].flatMap((path) => {
    const r = byPath.get(path);
    if (!r) return [];
    const row = r.entry;
    return [
      {
        path: row.path,
        version: row.version,
        deleted: row.deleted,
        sha256: row.sha256,
        size: row.sizeBytes,
        content: row.deleted ? null : row.content,
        cursor: row.cursor,
        author: r.author ?? "",
        updatedAt: row.updatedAt.toISOString(),
      },
    ];
  });
}

type VersionRow = typeof versions.$inferSelect;
/** What renames say about versions of one path: version → the other path. */
interface RenameLinks {
  to: Map<number, string>;
  from: Map<number, string>;
}
function versionInfo(r: VersionRow, links?: RenameLinks): VersionInfo {
  const renamedTo = links?.to.get(r.version);
  const renamedFrom = links?.from.get(r.version);
  return {
    version: r.version,
    kind: r.kind,
    deleted: r.deleted,
    sha256: r.sha256,
    size: r.sizeBytes,
    parentVersion: r.parentVersion,
    baseVersion: r.baseVersion,
    author: r.authorName,
    clientId: r.clientId,
    opId: r.opId,
    cursor: r.cursor,
    createdAt: r.createdAt.toISOString(),
    ...(renamedFrom ? { renamedFrom } : {}),
    ...(renamedTo ? { renamedTo } : {}),
    ...(r.purgedAt ? { purged: { by: r.purgedBy ?? "", at: r.purgedAt.toISOString(), reason: r.purgeReason ?? "" } } : {}),
  };
}

/** The renames that left `path` (its tombstones) or arrived at it (its versions). */
async function renameLinks(db: Db, namespaceId: string, path: string): Promise<RenameLinks> {
  const rows = await db
    .select()
    .from(renames)
    .where(and(eq(renames.namespaceId, namespaceId), or(eq(renames.fromPath, path), eq(renames.toPath, path))));
  const links: RenameLinks = { to: new Map(), from: new Map() };
  for (const r of rows) {
    if (r.fromPath === path) links.to.set(r.fromVersion, r.toPath);
    if (r.toPath === path) links.from.set(r.toVersion, r.fromPath);
  }
  return links;
}

type ConflictRow = typeof conflicts.$inferSelect;
function conflictRecord(r: ConflictRow): ConflictRecord {
  return {
    id: r.id,
    path: r.path,
    baseVersion: r.baseVersion,
    headVersion: r.headVersion,
    deleted: r.deleted,
    sha256: r.sha256,
    content: r.content,
    author: r.authorName,
    clientId: r.clientId,
    opId: r.opId,
    cursor: r.cursor,
    status: r.status === "resolved" ? "resolved" : "open",
    resolvedVersion: r.resolvedVersion,
    resolvedAt: iso(r.resolvedAt),
    createdAt: r.createdAt.toISOString(),
  };
}

/** Every version of `path` (newest first) and its conflict records (newest first). */
export async function readHistory(db: Db, namespaceId: string, path: string): Promise<{ versions: VersionInfo[]; conflicts: ConflictRecord[] }> {
  const versionRows = await db
    .select()
    .from(versions)
    .where(and(eq(versions.namespaceId, namespaceId), eq(versions.path, path)))
    .orderBy(desc(versions.version));
  const conflictRows = await db
    .select()
    .from(conflicts)
    .where(and(eq(conflicts.namespaceId, namespaceId), eq(conflicts.path, path)))
    .orderBy(desc(conflicts.cursor));
  const links = await renameLinks(db, namespaceId, path);
  return { versions: versionRows.map((r) => versionInfo(r, links)), conflicts: conflictRows.map(conflictRecord) };
}

/** One version with its content (null for a tombstone), or null when it does not exist. */
export async function readVersion(db: Db, namespaceId: string, path: string, version: number): Promise<(VersionInfo & { path: string; content: string | null }) | null> {
  const [row] = await db
    .select()
    .from(versions)
    .where(and(eq(versions.namespaceId, namespaceId), eq(versions.path, path), eq(versions.version, version)));
  return row ? { ...versionInfo(row, await renameLinks(db, namespaceId, path)), path: row.path, content: row.content } : null;
}

/** Conflict records of the namespace with `status` (or all), oldest first. */
export async function listConflicts(db: Db, namespaceId: string, status: "open" | "resolved" | "all"): Promise<ConflictRecord[]> {
  const where = status === "all" ? eq(conflicts.namespaceId, namespaceId) : and(eq(conflicts.namespaceId, namespaceId), eq(conflicts.status, status));
  const rows = await db.select().from(conflicts).where(where).orderBy(asc(conflicts.cursor));
  return rows.map(conflictRecord);
}

