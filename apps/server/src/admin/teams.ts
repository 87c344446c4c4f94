import { eq } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { memberships, principals, teams } from "../db/schema.js";
import type { Role } from "../auth/auth-context.js";

/** Creates team `name` if absent. @returns its id. */
export async function ensureTeam(db: Db | Tx, name: string): Promise<string> {
  await db.insert(teams).values({ name }).onConflictDoNothing();
  const [row] = await db.select({ id: teams.id }).from(teams).where(eq(teams.name, name));
  return row!.id;
}

/** Creates principal `name` if absent and (re)sets its role in team `teamId`. @returns the principal id. */
export async function ensureMember(db: Db | Tx, teamId: string, name: string, role: Role): Promise<string> {
  await db.insert(principals).values({ name }).onConflictDoNothing();
  const [row] = await db.select({ id: principals.id }).from(principals).where(eq(principals.name, name));
  await db
    .insert(memberships)
    .values({ teamId, principalId: row!.id, role })
    .onConflictDoUpdate({ target: [memberships.teamId, memberships.principalId], set: { role } });
  return row!.id;
}
