/** Namespaces of a team: create on first use, find by name, list. */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { entries, namespaces } from "../db/schema.js";

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

/** Finds or creates (race-safe) the namespace; `created` says whether this call created it. */
export async function ensureNamespace(db: Db | Tx, teamId: string, name: string): Promise<NamespaceRow & { created: boolean }> {
  const found = await findNamespace(db, teamId, name);
  if (found) return { ...found, created: false };
  const [inserted] = await db.insert(namespaces).values({ teamId, name }).onConflictDoNothing().returning(columns);
  if (inserted) return { ...inserted, created: true };
  const existing = await findNamespace(db, teamId, name);
  if (!existing) throw new Error("namespace vanished right after a conflicting insert");
  return { ...existing, created: false };
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
