import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { memberships, principals, teams } from "../db/schema.js";
import { recordAuditEvent, type Actor } from "../audit/events.js";
import type { Role } from "../auth/auth-context.js";
import { Refusal } from "../errors/refusal.js";

/** Creates team `name` if absent. @returns its id, and whether this call created it. */
export async function ensureTeam(db: Db | Tx, name: string): Promise<{ teamId: string; created: boolean }> {
  const [inserted] = await db.insert(teams).values({ name }).onConflictDoNothing().returning({ id: teams.id });
  if (inserted) return { teamId: inserted.id, created: true };
  const [row] = await db.select({ id: teams.id }).from(teams).where(eq(teams.name, name));
  return { teamId: row!.id, created: false };
}

/** What {@link ensureMember} changed: a new membership, a raised role (`previousRole` set), or nothing. */
export interface MembershipChange {
  readonly principalId: string;
  readonly added: boolean;
  /** The role before, when an existing membership's role was raised; else null. */
  readonly previousRole: Role | null;
}

const RANK: Record<Role, number> = { reader: 0, member: 1, admin: 2 };

/**
 * Creates principal `name` if absent and makes it a member of team `teamId`. An existing
 * membership's role is raised to `role` if that is higher, never lowered (issuing a reader token to
 * an admin must not demote them; a request acts with its own token's role anyway).
 * @returns the principal id and what changed (for the caller's audit events).
 */
export async function ensureMember(db: Db | Tx, teamId: string, name: string, role: Role): Promise<MembershipChange> {
  await db.insert(principals).values({ name }).onConflictDoNothing();
  const [row] = await db.select({ id: principals.id }).from(principals).where(eq(principals.name, name));
  const principalId = row!.id;
  const [added] = await db.insert(memberships).values({ teamId, principalId, role }).onConflictDoNothing().returning({ role: memberships.role });
  if (added) return { principalId, added: true, previousRole: null };
  const [member] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.principalId, principalId)));
  if (member && RANK[member.role as Role] < RANK[role]) {
    await db.update(memberships).set({ role }).where(and(eq(memberships.teamId, teamId), eq(memberships.principalId, principalId)));
    return { principalId, added: false, previousRole: member.role as Role };
  }
  return { principalId, added: false, previousRole: null };
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

/**
 * Sets member `user`'s role in team `teamId`, in one transaction that locks the team's admin
 * memberships first (two admins demoting each other cannot both succeed) and records a change (not
 * a repeat of the current role) as a `member_role_changed` event by `actor` (both commit or neither).
 * @returns the role before and after, or null when `user` is not a member of the team.
 * @throws Refusal last_admin (409) when it would leave the team without an admin.
 */
export async function setMemberRole(db: Db, teamId: string, user: string, role: Role, actor: Actor): Promise<{ previousRole: Role; role: Role } | null> {
  return db.transaction(async (tx) => {
    const admins = await tx
      .select({ principalId: memberships.principalId })
      .from(memberships)
      .where(and(eq(memberships.teamId, teamId), eq(memberships.role, "admin")))
      .for("update");
    const [member] = await tx
      .select({ principalId: memberships.principalId, role: memberships.role })
      .from(memberships)
      .innerJoin(principals, eq(principals.id, memberships.principalId))
      .where(and(eq(memberships.teamId, teamId), eq(principals.name, user)));
    if (!member) return null;
    const previousRole = member.role as Role;
    if (previousRole === "admin" && role !== "admin" && admins.length === 1) {
      throw new Refusal("last_admin", `${user} is the team's only admin; make another member admin first`, { user });
    }
    if (previousRole !== role) {
      await tx.update(memberships).set({ role }).where(and(eq(memberships.teamId, teamId), eq(memberships.principalId, member.principalId)));
      await recordAuditEvent(tx, { teamId, actor, kind: "member_role_changed", targetUser: user, role, previousRole });
    }
    return { previousRole, role };
  });
}

/** Every team (or only team `teamId`) with its member count, by name. */
export async function listTeams(db: Db | Tx, teamId?: string): Promise<{ id: string; name: string; createdAt: Date; members: number }[]> {
  const rows = await db
    .select({ id: teams.id, name: teams.name, createdAt: teams.createdAt, members: sql<number>`count(${memberships.principalId})` })
    .from(teams)
    .leftJoin(memberships, eq(memberships.teamId, teams.id))
    .where(teamId !== undefined ? eq(teams.id, teamId) : undefined)
    .groupBy(teams.id)
    .orderBy(asc(teams.name));
  return rows.map((r) => ({ ...r, members: Number(r.members) }));
}
