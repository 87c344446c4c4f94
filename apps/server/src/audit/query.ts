/**
 * Reading the audit log: filters, keyset pages (newest first), one event, summary counts, and the
 * batches of an export (oldest first, bounded size, so an export of any length runs in constant
 * memory). Every read is confined to one team, or to every team for the server's own CLI.
 */
import type { AuditEvent, AuditFilter, AuditSummary } from "@teammem/protocol";
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { auditEvents } from "../db/schema.js";

/** Whose events: one team's (`teamId`), or every team's and those of no team (`all`, the server's CLI). */
export type AuditScope = { teamId: string } | { all: true };

type Row = typeof auditEvents.$inferSelect;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A stored row as the protocol's {@link AuditEvent}. */
function toWire(r: Row): AuditEvent {
  return {
    id: r.id,
    kind: r.kind,
    createdAt: r.createdAt.toISOString(),
    actor: r.actorName,
    namespace: r.namespace,
    path: r.path,
    clientId: r.clientId,
    code: r.code,
    findings: r.findings ?? null,
    fingerprintKeyId: r.fingerprintKeyId,
    tokenId: r.tokenId,
    targetUser: r.targetUser,
    role: r.role,
    previousRole: r.previousRole,
    version: r.version,
    resultVersion: r.resultVersion,
    conflictId: r.conflictId,
    bypassId: r.bypassId,
    reason: r.reason,
    reasonText: r.reasonText,
    note: r.note,
    policy: r.policy,
    previousPolicy: r.previousPolicy,
    count: r.count,
    remoteAddress: r.remoteAddress,
    periodStart: iso(r.periodStart),
    periodEnd: iso(r.periodEnd),
    epoch: r.epoch,
    previousEpoch: r.previousEpoch,
  };
}

/** `findings @> [partial]`: the event has a finding with all of `partial`'s fields (GIN-indexed). */
const hasFinding = (partial: Record<string, string>): SQL => sql`${auditEvents.findings} @> ${JSON.stringify([partial])}::jsonb`;

/** Kinds whose events recorded before try18 F3 name the file `team/<entry path>` (as the client showed it). */
const BYPASS_KINDS = ["bypass_requested", "bypass_approved", "bypass_denied", "bypass_revoked"] as const;

/**
 * Events whose path starts with `prefix`, an entry path's start. Bypass events are stored with the
 * entry path now, but the audit log is append-only: the ones recorded before kept `team/` ahead of
 * it, so they match `team/<prefix>` too and stay findable by the same filter as the file's other
 * events. (A bypass event of an entry under a folder named `team` may then match one prefix more.)
 */
function pathPrefixMatch(prefix: string): SQL {
  return sql`(starts_with(${auditEvents.path}, ${prefix}) OR (${inArray(auditEvents.kind, [...BYPASS_KINDS])} AND starts_with(${auditEvents.path}, ${"team/" + prefix})))`;
}

/** The WHERE clause of `scope` and `filter`. */
function auditWhere(scope: AuditScope, filter: AuditFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    "teamId" in scope ? eq(auditEvents.teamId, scope.teamId) : undefined,
    filter.from !== undefined ? gte(auditEvents.createdAt, new Date(filter.from)) : undefined,
    filter.to !== undefined ? lt(auditEvents.createdAt, new Date(filter.to)) : undefined,
    filter.kind !== undefined ? inArray(auditEvents.kind, filter.kind) : undefined,
    filter.user !== undefined ? or(eq(auditEvents.actorName, filter.user), eq(auditEvents.targetUser, filter.user)) : undefined,
    filter.namespace !== undefined ? eq(auditEvents.namespace, filter.namespace) : undefined,
    filter.pathPrefix !== undefined ? pathPrefixMatch(filter.pathPrefix) : undefined,
    filter.ruleId !== undefined ? hasFinding({ ruleId: filter.ruleId }) : undefined,
    filter.fingerprint !== undefined ? hasFinding({ fingerprint: filter.fingerprint }) : undefined,
  ];
  return and(...conditions.filter((c): c is SQL => c !== undefined));
}

/**
 * A page of matching events, newest first, with ids below `before` when given.
 * @returns the events and `nextBefore` (the last id when the page is full, else null).
 */
export async function listAuditEvents(
  db: Db,
  scope: AuditScope,
  filter: AuditFilter,
  page: { limit: number; before?: number | undefined },
): Promise<{ events: AuditEvent[]; nextBefore: number | null }> {
  const where = and(auditWhere(scope, filter), page.before !== undefined ? lt(auditEvents.id, page.before) : undefined);
  const rows = await db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.id)).limit(page.limit);
  return { events: rows.map(toWire), nextBefore: rows.length === page.limit ? rows[rows.length - 1]!.id : null };
}

/** Event `id` within `scope`, or null (another team's event is not found either). */
export async function readAuditEvent(db: Db, scope: AuditScope, id: number): Promise<AuditEvent | null> {
  const [row] = await db
    .select()
    .from(auditEvents)
    .where(and(auditWhere(scope, {}), eq(auditEvents.id, id)));
  return row ? toWire(row) : null;
}

/** Runs `query` and returns its rows (pg and PGlite both answer `{ rows }`). */
async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Counts of matching events by kind, rule, actor, namespace (most first) and UTC day (oldest first). */
export async function summarizeAuditEvents(db: Db, scope: AuditScope, filter: AuditFilter): Promise<AuditSummary> {
  const where = auditWhere(scope, filter) ?? sql`true`;
  const n = count();
  const grouped = async (column: typeof auditEvents.kind | typeof auditEvents.actorName | typeof auditEvents.namespace) => {
    const rows = await db
      .select({ key: column, count: n })
      .from(auditEvents)
      .where(and(where, sql`${column} IS NOT NULL`))
      .groupBy(column)
      .orderBy(desc(n), asc(column));
    return rows.map((r) => ({ key: String(r.key), count: Number(r.count) }));
  };
  const [total] = await db.select({ count: n }).from(auditEvents).where(where);
  const byRule = await rowsOf<{ key: string; count: string | number }>(
    db,
    sql`SELECT f->>'ruleId' AS key, count(DISTINCT ${auditEvents.id}) AS count
        FROM ${auditEvents}, jsonb_array_elements(${auditEvents.findings}) AS f
        WHERE ${where} AND jsonb_typeof(${auditEvents.findings}) = 'array'
        GROUP BY 1 ORDER BY 2 DESC, 1`,
  );
  const byDay = await rowsOf<{ day: string; count: string | number }>(
    db,
    sql`SELECT to_char(${auditEvents.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS count
        FROM ${auditEvents} WHERE ${where} GROUP BY 1 ORDER BY 1`,
  );
  return {
    total: Number(total?.count ?? 0),
    byKind: await grouped(auditEvents.kind),
    byRule: byRule.map((r) => ({ key: r.key, count: Number(r.count) })),
    byUser: await grouped(auditEvents.actorName),
    byNamespace: await grouped(auditEvents.namespace),
    byDay: byDay.map((r) => ({ day: r.day, count: Number(r.count) })),
  };
}

/**
 * The matching events as they stood when the export started, oldest first, in batches of at most
 * `batchSize` rows read one query at a time (keyset on id): memory stays bounded by one batch
 * whatever the export's length, and a consumer that stops reading stops the queries.
 */
export async function* auditEventBatches(db: Db, scope: AuditScope, filter: AuditFilter, batchSize: number): AsyncGenerator<AuditEvent[]> {
  const where = auditWhere(scope, filter);
  // Events recorded during the export (its own audit trail, say) are not chased: the export ends.
  const [top] = await db.select({ id: sql<number | null>`max(${auditEvents.id})` }).from(auditEvents);
  const last = Number(top?.id ?? 0);
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(auditEvents)
      .where(and(where, gt(auditEvents.id, after), lte(auditEvents.id, last)))
      .orderBy(asc(auditEvents.id))
      .limit(batchSize);
    if (rows.length === 0) return;
    yield rows.map(toWire);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1]!.id;
  }
}
