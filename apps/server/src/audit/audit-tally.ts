/**
 * Counts audit events as they are recorded, by reading the audit table forward (by id) whenever
 * asked: for metrics of every process writing to the database (server instances, CLI commands),
 * without touching the code that records events. Events recorded before the tally started are not
 * counted. Ids are handed out at insert and may commit out of order: the tally re-reads the last
 * `lookback` ids each time and counts each id once, so an event committing up to `lookback` ids
 * late is still counted.
 */
import { gt, sql } from "drizzle-orm";
import type { AuditEventKind } from "@teammem/protocol";
import type { Db } from "../db/database.js";
import { auditEvents } from "../db/schema.js";

/** One new event as the tally reports it: its kind and the rule ids of its findings (one per finding). */
export interface TalliedEvent {
  kind: AuditEventKind;
  ruleIds: string[];
}

export class AuditTally {
  /** Ids at or below this are counted (or predate the tally); null until `start`. */
  private low: number | null = null;
  private readonly counted = new Set<number>();
  private polling: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly onEvent: (event: TalliedEvent) => void,
    private readonly opts: { lookback: number; maxRowsPerPoll: number } = { lookback: 1000, maxRowsPerPoll: 10_000 },
  ) {}

  /** Starts counting from the events recorded after now. */
  async start(): Promise<void> {
    const [row] = await this.db.select({ max: sql<string | null>`max(${auditEvents.id})::text` }).from(auditEvents);
    this.low = Number(row?.max ?? 0);
  }

  /** Reads the events recorded since the last poll and reports each once. Concurrent calls share one read. */
  poll(): Promise<void> {
    return (this.polling ??= this.read().finally(() => (this.polling = null)));
  }

  private async read(): Promise<void> {
    if (this.low === null) return;
    const rows = await this.db
      .select({ id: auditEvents.id, kind: auditEvents.kind, findings: auditEvents.findings })
      .from(auditEvents)
      .where(gt(auditEvents.id, this.low))
      .orderBy(auditEvents.id)
      .limit(this.opts.maxRowsPerPoll);
    let highest = this.low;
    for (const row of rows) {
      highest = Math.max(highest, row.id);
      if (this.counted.has(row.id)) continue;
      this.counted.add(row.id);
      this.onEvent({ kind: row.kind, ruleIds: (row.findings ?? []).map((f) => f.ruleId) });
    }
    const low = Math.max(this.low, highest - this.opts.lookback);
    for (const id of this.counted) if (id <= low) this.counted.delete(id);
    this.low = low;
  }
}
