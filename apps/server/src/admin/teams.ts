import { and, asc, eq } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { memberships, principals, teams } from "../db/schema.js";
import type { Role } from "../auth/auth-context.js";

/** Creates team `name` if absent. @returns its id. */
export async function ensureTeam(db: Db | Tx, name: string): Promise<string> {
  await db.insert(teams).values({ name }).onConflictDoNothing();
  const [row] = await db.select({ id: teams.id }).from(teams).where(eq(teams.name, name));
  return row!.id;
}

const RANK: Record<Role, number> = { reader: 0, member: 1, admin: 2 };

/**
 * Creates principal `name` if absent and makes it a member of team `teamId`. An existing
 * membership's role is raised to `role` if that is higher, never lowered (issuing a reader token to
 * an admin must not demote them; a request acts with its own token's role anyway).
 * @returns the principal id.
 */
export async function ensureMember(db: Db | Tx, teamId: string, name: string, role: Role): Promise<string> {
  await db.insert(principals).values({ name }).onConflictDoNothing();
  const [row] = await db.select({ id: principals.id }).from(principals).where(eq(principals.name, name));
  const principalId = row!.id;
  await db.insert(memberships).values({ teamId, principalId, role }).onConflictDoNothing();
  const [member] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.principalId, principalId)));
  if (member && RANK[member.role as Role] < RANK[role]) {
    await db.update(memberships).set({ role }).where(and(eq(memberships.teamId, teamId), eq(memberships.principalId, principalId)));
  }
  return principalId;
}

/** The id of team `name`, or null. */
export async function findTeam(db: Db | Tx, name: string): Promise<string | null> {
  const [row] = await db.select({ id: teams.id }).from(teams).where(eq(teams.name, name));
  return row?.id ?? null;
}

/** Members of team `teamId` by name, with role and join time. */
export async function listMembers(db: Db | Tx, teamId: string): Promise<{ user: string; role: Role; joinedAt: Date }[]> {
  const rows = await db
    .select({ user: principals.name, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(principals, eq(principals.id, memberships.principalId))
    .where(eq(memberships.teamId, teamId))
    .orderBy(asc(principals.name));
  return rows.map((r) => ({ ...r, role: r.role as Role }));
}
