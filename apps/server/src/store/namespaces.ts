/** Namespaces of a team: create on first use, find by name, list. */
import { namespaceFoldKey } from "@teammem/protocol";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { entries, namespaces } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";

/**
 * First key of the transaction-level advisory lock (two-key form: this, hash of team and fold key)
 * that serialises the creation of namespaces of one fold key, so two teammates creating `ACME/Web`
 * and `acme/web` at once cannot both pass the twin check.
 */
const NAMESPACE_FOLD_LOCK_KEY = 0x7ea3_a10;

export interface NamespaceRow {
  id: string;
  teamId: string;
  name: string;
  /** Last change cursor handed out in this namespace (0: none yet). */
  cursor: number;
}

const columns = { id: namespaces.id, teamId: namespaces.teamId, name: namespaces.name, cursor: namespaces.cursor };

/** The namespace `name` of team `teamId`, or null (another team's namespace is null too). */
export async function findNamespace(db: Db | Tx, teamId: string, name: string): Promise<NamespaceRow | null> {
  const [row] = await db
    .select(columns)
    .from(namespaces)
    .where(and(eq(namespaces.teamId, teamId), eq(namespaces.name, name)));
  return row ?? null;
}

/**
 * Finds or creates (race-safe) the namespace; `created` says whether this call created it.
 * An existing name is found as spelled (twins stored before the fold check keep working).
 * @throws Refusal `namespace_name_conflict` (details `{ existing }`) when creating `name` while the
 *   team has a namespace of the same {@link namespaceFoldKey} under another spelling.
 *
 * Why a lock and no unique index on the fold key: databases made before the check may hold twins
 * (`Acme/Web` beside `acme/web`), which a unique index would refuse to build or force a migration to
 * rename, breaking their clients. Creation is rare (once per namespace), so an advisory lock per
 * (team, fold key) plus a scan of the team's names under it is enough, with no schema change.
 */
export async function ensureNamespace(db: Db | Tx, teamId: string, name: string): Promise<NamespaceRow & { created: boolean }> {
  const found = await findNamespace(db, teamId, name);
  if (found) return { ...found, created: false };
  const fold = namespaceFoldKey(name);
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${NAMESPACE_FOLD_LOCK_KEY}::int, hashtext(${`${teamId}\n${fold}`}))`);
    const raced = await findNamespace(tx, teamId, name);
    if (raced) return { ...raced, created: false };
    const [twin] = await tx
      .select({ name: namespaces.name })
      .from(namespaces)
      // namespaceFoldKey in SQL (names are ASCII: lower() folds them alike under any collation).
      .where(and(eq(namespaces.teamId, teamId), sql`(CASE WHEN lower(${namespaces.name}) LIKE '%.git' THEN left(lower(${namespaces.name}), -4) ELSE lower(${namespaces.name}) END) = ${fold}`))
      .orderBy(asc(namespaces.createdAt), asc(namespaces.name))
      .limit(1);
    if (twin) {
      throw new Refusal(
        "namespace_name_conflict",
        `namespace ${twin.name} exists; names differing only by letter case or a trailing .git are one namespace: use ${twin.name}`,
        { existing: twin.name },
      );
    }
    const [inserted] = await tx.insert(namespaces).values({ teamId, name }).onConflictDoNothing().returning(columns);
    if (inserted) return { ...inserted, created: true };
    const existing = await findNamespace(tx, teamId, name);
    if (!existing) throw new Error("namespace vanished right after a conflicting insert");
    return { ...existing, created: false };
  });
}

/** Live (not deleted) entries of namespace `id` (the counter kept with every write; one row read). */
export async function namespaceLiveEntries(db: Db | Tx, id: string): Promise<number> {
  const [row] = await db.select({ live: namespaces.liveEntries }).from(namespaces).where(eq(namespaces.id, id));
  return row?.live ?? 0;
}

/** The team's namespaces by name, with their cursor and number of live entries. */
export async function listNamespaces(db: Db | Tx, teamId: string): Promise<{ name: string; cursor: number; entries: number }[]> {
  return db
    .select({
      name: namespaces.name,
      cursor: namespaces.cursor,
      entries: sql<number>`(select count(*) from ${entries} where ${entries.namespaceId} = ${namespaces.id} and not ${entries.deleted})`.mapWith(Number),
    })
    .from(namespaces)
    .where(eq(namespaces.teamId, teamId))
    .orderBy(asc(namespaces.name));
}
