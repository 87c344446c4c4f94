/**
 * Bypass requests and decisions: a member asks that a secret (by its team-keyed fingerprint, never
 * its value) be let through for the team; the team's policy approves it at once (`immediate`) or
 * leaves it pending for an admin (`approval`); admins approve, deny, and revoke approved ones. Each
 * step commits with its audit event. Approved fingerprints made with the team's current key are
 * the team's allowed fingerprints ({@link approvedFingerprints}).
 */
import type { Bypass, BypassPolicy, BypassRequest, BypassStatus } from "@teammem/protocol";
import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { recordAuditEvent, type Actor, POLICY_ACTOR } from "../audit/events.js";
import { currentFingerprintKey } from "../policy/fingerprint-keys.js";
import type { Db, Tx } from "../db/database.js";
import { bypasses, teams } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";
import { redactSecrets } from "../secrets/names.js";

type Row = typeof bypasses.$inferSelect;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A stored request as the protocol's {@link Bypass}; `currentKeyId` is the team's current fingerprint key. */
export function bypassToWire(r: Row, currentKeyId: number): Bypass {
  return {
    id: r.id,
    status: r.status,
    fingerprint: r.fingerprint,
    fingerprintKeyId: r.fingerprintKeyId,
    currentKey: r.fingerprintKeyId === currentKeyId,
    ruleId: r.ruleId,
    namespace: r.namespace,
    path: r.path,
    line: r.line,
    column: r.column,
    reason: r.reason,
    reasonText: r.reasonText,
    requestedBy: r.requestedBy,
    requestedAt: r.requestedAt.toISOString(),
    decidedBy: r.decidedBy,
    decidedAt: iso(r.decidedAt),
    note: r.note,
    revokedBy: r.revokedBy,
    revokedAt: iso(r.revokedAt),
    revokeNote: r.revokeNote,
  };
}

/** The team's bypass policy (`approval` until an admin sets one). */
export async function teamBypassPolicy(db: Db | Tx, teamId: string): Promise<BypassPolicy> {
  const [row] = await db.select({ policy: teams.bypassPolicy }).from(teams).where(eq(teams.id, teamId));
  return row?.policy ?? "approval";
}

/**
 * Sets the team's bypass policy; requests already pending stay pending. A change (not a repeat of
 * the current policy) is recorded as a `bypass_policy_changed` audit event by `actor` with the
 * new `policy` and the `previousPolicy`, in the same transaction.
 * @returns the policy before.
 */
export async function setTeamBypassPolicy(db: Db, teamId: string, policy: BypassPolicy, actor: Actor): Promise<BypassPolicy> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ policy: teams.bypassPolicy }).from(teams).where(eq(teams.id, teamId)).for("update");
    const previous = row?.policy ?? "approval";
    if (previous === policy) return previous;
    await tx.update(teams).set({ bypassPolicy: policy }).where(eq(teams.id, teamId));
    await recordAuditEvent(tx, { teamId, actor, kind: "bypass_policy_changed", policy, previousPolicy: previous });
    return previous;
  });
}

/** The audit fields of a request (what every bypass event records). */
function auditFields(r: Row) {
  return {
    bypassId: r.id,
    namespace: r.namespace,
    path: r.path,
    clientId: r.clientId,
    ruleId: r.ruleId,
    line: r.line,
    column: r.column,
    fingerprint: r.fingerprint,
    fingerprintKeyId: r.fingerprintKeyId,
    reason: r.reason,
    reasonText: r.reasonText,
    targetUser: r.requestedBy,
  };
}

export interface NewBypass {
  readonly teamId: string;
  /** The requesting user (from the token). */
  readonly actor: { readonly id: string; readonly name: string };
  readonly request: BypassRequest;
  /** The team's current fingerprint key id: a request made with another is refused. */
  readonly currentKeyId: number;
}

/**
 * Records a bypass request, approved at once when the team's policy is `immediate`.
 * @returns the request and whether it is new; an existing pending or approved request of the team
 *   for the same fingerprint (and key) is returned instead of a second one (nothing recorded).
 * @throws Refusal fingerprint_key_stale (details `{ currentKeyId }`) when the request's key was
 *   rotated away; secret_detected when its free text holds a credential.
 */
export async function requestBypass(db: Db, input: NewBypass): Promise<{ row: Row; created: boolean }> {
  const { request, teamId } = input;
  if (request.fingerprintKeyId !== input.currentKeyId) {
    throw new Refusal(
      "fingerprint_key_stale",
      `fingerprint key ${request.fingerprintKeyId} was rotated away; the team's key is ${input.currentKeyId}: fetch the scan policy and scan again`,
      { currentKeyId: input.currentKeyId },
    );
  }
  refuseSecretText(request.reasonText, "reasonText");
  return db.transaction(async (tx) => {
    const live = await liveRequest(tx, teamId, request.fingerprintKeyId, request.fingerprint);
    if (live) return { row: live, created: false };
    const policy = await teamBypassPolicy(tx, teamId);
    const now = new Date();
    const [row] = await tx
      .insert(bypasses)
      .values({
        teamId,
        status: policy === "immediate" ? "approved" : "pending",
        fingerprint: request.fingerprint,
        fingerprintKeyId: request.fingerprintKeyId,
        ruleId: request.ruleId,
        namespace: redactSecrets(request.namespace),
        path: redactSecrets(entryPathOfRequest(request.path)),
        line: request.line,
        column: request.column ?? null,
        reason: request.reason,
        reasonText: request.reasonText ?? null,
        clientId: request.clientId !== undefined ? redactSecrets(request.clientId) : null,
        requestedById: input.actor.id,
        requestedBy: input.actor.name,
        requestedAt: now,
        ...(policy === "immediate" ? { decidedBy: POLICY_ACTOR.name, decidedAt: now } : {}),
      })
      .onConflictDoNothing()
      .returning();
    // A concurrent request for the same fingerprint won the unique index: answer with it.
    if (!row) return { row: (await liveRequest(tx, teamId, request.fingerprintKeyId, request.fingerprint))!, created: false };
    await recordAuditEvent(tx, { teamId, actor: input.actor, kind: "bypass_requested", ...auditFields(row), policy, note: null });
    if (row.status === "approved") {
      await recordAuditEvent(tx, { teamId, actor: POLICY_ACTOR, kind: "bypass_approved", ...auditFields(row), policy, note: null });
    }
    return { row, created: true };
  });
}

/**
 * The entry path of a request's `path`: clients send the entry path; those before try18 F3 sent
 * the held-back file as they show it, `team/<entry path>`. It is stored (and audited) as the entry path, the form every other event
 * names a file by, so one path filter finds a file's whole story (try18 F3). A path without the
 * `team/` lead is stored as it came.
 */
export function entryPathOfRequest(path: string): string {
  return path.startsWith(TEAM_LEAD) && path.length > TEAM_LEAD.length ? path.slice(TEAM_LEAD.length) : path;
}
const TEAM_LEAD = "team/";

async function liveRequest(db: Db | Tx, teamId: string, keyId: number, fingerprint: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(bypasses)
    .where(
      and(
        eq(bypasses.teamId, teamId),
        eq(bypasses.fingerprintKeyId, keyId),
        eq(bypasses.fingerprint, fingerprint),
        inArray(bypasses.status, ["pending", "approved"]),
      ),
    );
  return row;
}

/** Free text of people must not carry a credential into the database and the audit log. */
function refuseSecretText(text: string | null | undefined, field: string): void {
  if (text == null) return;
  if (redactSecrets(text) !== text) throw new Refusal("secret_detected", `${field} holds a credential; describe it without the value`, { field });
}

/** What an admin does to a request: approve or deny a pending one, revoke an approved one. */
export type BypassAction = "approve" | "deny" | "revoke";

const NEXT: Record<BypassAction, { from: BypassStatus; to: BypassStatus; kind: "bypass_approved" | "bypass_denied" | "bypass_revoked" }> = {
  approve: { from: "pending", to: "approved", kind: "bypass_approved" },
  deny: { from: "pending", to: "denied", kind: "bypass_denied" },
  revoke: { from: "approved", to: "revoked", kind: "bypass_revoked" },
};

/**
 * Applies `action` to request `id` of the team, with its audit event, in one transaction. `note`
 * is stored as the decision's `note` (approve, deny) or the `revokeNote` (revoke), and recorded in
 * the audit event either way.
 * @returns the changed request, or null when the team has no such request.
 * @throws Refusal bypass_not_pending (approve, deny) or bypass_not_approved (revoke) with details
 *   `{ status }` when the request is in another state; fingerprint_key_stale (approve, details
 *   `{ currentKeyId, requestedBy }`) when the request was made with a key rotated away since: its
 *   fingerprint matches nothing the team's clients make now, so an approval would let nothing
 *   through (the requester asks again with the new fingerprint); secret_detected
 *   when `note` holds a credential.
 */
export async function decideBypass(db: Db, teamId: string, id: string, action: BypassAction, actor: Actor, note: string | null): Promise<Row | null> {
  refuseSecretText(note, "note");
  const step = NEXT[action];
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(bypasses)
      .where(and(eq(bypasses.teamId, teamId), eq(bypasses.id, id)))
      .for("update");
    if (!current) return null;
    if (current.status !== step.from) {
      throw new Refusal(
        action === "revoke" ? "bypass_not_approved" : "bypass_not_pending",
        `bypass ${id} is ${current.status}; only ${step.from === "pending" ? "a pending request can be approved or denied" : "an approved bypass can be revoked"}`,
        { status: current.status },
      );
    }
    if (action === "approve") {
      // A rotation locks the team row for update: share-lock it, so none commits between this check and the approval.
      await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).for("share");
      const key = await currentFingerprintKey(tx, teamId);
      if (current.fingerprintKeyId !== key.id) {
        throw new Refusal(
          "fingerprint_key_stale",
          `bypass ${id} was requested under fingerprint key ${current.fingerprintKeyId}, rotated away since (the team's key is ${key.id}): ` +
            `an approval would let nothing through; ask ${current.requestedBy} to request it again (teammem sync --allow with the fingerprint their next sync shows), approve that request and deny this one`,
          { currentKeyId: key.id, requestedBy: current.requestedBy },
        );
      }
    }
    const now = new Date();
    const change =
      action === "revoke"
        ? { status: step.to, revokedBy: actor.name, revokedAt: now, revokeNote: note }
        : { status: step.to, decidedBy: actor.name, decidedAt: now, note };
    const [row] = await tx.update(bypasses).set(change).where(eq(bypasses.id, id)).returning();
    await recordAuditEvent(tx, { teamId, actor, kind: step.kind, ...auditFields(row!), policy: null, note });
    return row!;
  });
}

/** Request `id` of the team (and of `requestedById` when given), or null. */
export async function readBypass(db: Db, teamId: string, id: string, requestedById?: string): Promise<Row | null> {
  const [row] = await db
    .select()
    .from(bypasses)
    .where(and(eq(bypasses.teamId, teamId), eq(bypasses.id, id), requestedById !== undefined ? eq(bypasses.requestedById, requestedById) : undefined));
  return row ?? null;
}

export interface BypassPage {
  readonly status: BypassStatus | "all";
  readonly limit: number;
  /** A bypass id: only requests listed after it (older). */
  readonly before?: string | undefined;
  /** Only this user's requests. */
  readonly requestedById?: string;
}

/**
 * The team's requests, newest first (requested time, then id), one page.
 * @returns the rows and `nextBefore` (the last id when the page is full, else null).
 */
export async function listBypasses(db: Db, teamId: string, page: BypassPage): Promise<{ rows: Row[]; nextBefore: string | null }> {
  const conditions: (SQL | undefined)[] = [
    eq(bypasses.teamId, teamId),
    page.status !== "all" ? eq(bypasses.status, page.status) : undefined,
    page.requestedById !== undefined ? eq(bypasses.requestedById, page.requestedById) : undefined,
  ];
  if (page.before !== undefined) {
    // Keyset on (requested_at, id): the cursor row's own position, whatever its state now.
    const [at] = await db
      .select({ requestedAt: bypasses.requestedAt })
      .from(bypasses)
      .where(and(eq(bypasses.teamId, teamId), eq(bypasses.id, page.before)));
    if (!at) throw new Refusal("invalid_request", "before: no such bypass in this team", { field: "before" });
    conditions.push(sql`(${bypasses.requestedAt}, ${bypasses.id}) < (${at.requestedAt.toISOString()}::timestamptz, ${page.before}::uuid)`);
  }
  const rows = await db
    .select()
    .from(bypasses)
    .where(and(...conditions))
    .orderBy(desc(bypasses.requestedAt), desc(bypasses.id))
    .limit(page.limit);
  return { rows, nextBefore: rows.length === page.limit ? rows[rows.length - 1]!.id : null };
}

/** Fingerprints of the team's approved bypasses made with key `keyId` (the team's current key). */
export async function approvedFingerprints(db: Db | Tx, teamId: string, keyId: number): Promise<string[]> {
  const rows = await db
    .select({ fingerprint: bypasses.fingerprint })
    .from(bypasses)
    .where(and(eq(bypasses.teamId, teamId), eq(bypasses.fingerprintKeyId, keyId), eq(bypasses.status, "approved")))
    .orderBy(bypasses.fingerprint);
  return rows.map((r) => r.fingerprint);
}
