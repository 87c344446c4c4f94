/**
 * After an import has written every row (inside its transaction): checks that the rows fit together
 * the way the server's write path keeps them, so a hand-edited or corrupted backup whose rows are
 * each valid is refused instead of leaving a database on which reads and writes fail. The checks:
 * - a namespace's cursor is at or above every cursor of its versions, entries and conflicts (the
 *   next write takes cursor + 1: below, it collides with a stored change);
 * - every entry (a path's head) has its version row, deleted alike, and no version of the path lies
 *   above it (the next write takes version + 1), and every versioned path has an entry;
 * - a namespace's live-entry count equals its entries that are not deleted (the entry limit reads it);
 * - every conflict's head version exists.
 * Each query is bounded to a few examples; runs on PostgreSQL and PGlite alike.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "../db/database.js";
import { BackupError } from "./backup-format.js";

/** Examples named per failed check. */
const EXAMPLES = 3;

interface Check {
  /** What the rows found break, given one of them (columns as selected below). */
  describe(row: Record<string, unknown>): string;
  query: SQL;
}

const CHECKS: Check[] = [
  {
    describe: (r) => `namespace ${JSON.stringify(r["name"])}: cursor ${String(r["cursor"])} is below its ${String(r["source"])}' highest cursor ${String(r["top"])}`,
    query: sql`
      SELECT n.name, n.cursor, m.source, m.top FROM namespaces n JOIN (
        SELECT namespace_id, 'versions' AS source, max(cursor) AS top FROM versions GROUP BY namespace_id
        UNION ALL SELECT namespace_id, 'entries', max(cursor) FROM entries GROUP BY namespace_id
        UNION ALL SELECT namespace_id, 'conflicts', max(cursor) FROM conflicts GROUP BY namespace_id
      ) m ON m.namespace_id = n.id
      WHERE m.top > n.cursor ORDER BY n.name, m.source LIMIT ${EXAMPLES}`,
  },
  {
    describe: (r) =>
      `namespace ${JSON.stringify(r["name"])}: the entry of ${JSON.stringify(r["path"])} is at version ${String(r["version"])}, ` +
      (r["found"] ? "which is deleted on one side only" : "which has no version row"),
    query: sql`
      SELECT n.name, e.path, e.version, v.id IS NOT NULL AS found FROM entries e
      JOIN namespaces n ON n.id = e.namespace_id
      LEFT JOIN versions v ON v.namespace_id = e.namespace_id AND v.path = e.path AND v.version = e.version
      WHERE v.id IS NULL OR v.deleted <> e.deleted ORDER BY n.name, e.path LIMIT ${EXAMPLES}`,
  },
  {
    describe: (r) =>
      r["version"] === null
        ? `namespace ${JSON.stringify(r["name"])}: ${JSON.stringify(r["path"])} has versions but no entry`
        : `namespace ${JSON.stringify(r["name"])}: ${JSON.stringify(r["path"])} has version ${String(r["top"])} above its entry's version ${String(r["version"])}`,
    query: sql`
      SELECT n.name, v.path, max(v.version) AS top, e.version FROM versions v
      JOIN namespaces n ON n.id = v.namespace_id
      LEFT JOIN entries e ON e.namespace_id = v.namespace_id AND e.path = v.path
      GROUP BY n.name, v.namespace_id, v.path, e.version
      HAVING e.version IS NULL OR max(v.version) > e.version ORDER BY n.name, v.path LIMIT ${EXAMPLES}`,
  },
  {
    describe: (r) => `namespace ${JSON.stringify(r["name"])}: live_entries is ${String(r["live_entries"])}, its entries not deleted number ${String(r["live"])}`,
    query: sql`
      SELECT n.name, n.live_entries, count(e.path) AS live FROM namespaces n
      LEFT JOIN entries e ON e.namespace_id = n.id AND NOT e.deleted
      GROUP BY n.id, n.name, n.live_entries HAVING n.live_entries <> count(e.path) ORDER BY n.name LIMIT ${EXAMPLES}`,
  },
  {
    describe: (r) => `namespace ${JSON.stringify(r["name"])}: conflict ${String(r["id"])} on ${JSON.stringify(r["path"])} names head version ${String(r["head_version"])}, which does not exist`,
    query: sql`
      SELECT n.name, c.id, c.path, c.head_version FROM conflicts c
      JOIN namespaces n ON n.id = c.namespace_id
      LEFT JOIN versions v ON v.namespace_id = c.namespace_id AND v.path = c.path AND v.version = c.head_version
      WHERE v.id IS NULL ORDER BY n.name, c.path LIMIT ${EXAMPLES}`,
  },
];

/**
 * @throws BackupError `backup_inconsistent` naming up to {@link EXAMPLES} rows per broken rule
 */
export async function checkConsistency(tx: Tx): Promise<void> {
  const problems: string[] = [];
  for (const check of CHECKS) {
    const rows = (await tx.execute(check.query)) as unknown as { rows: Record<string, unknown>[] };
    problems.push(...rows.rows.map(check.describe));
  }
  if (problems.length > 0) throw new BackupError("backup_inconsistent", `the rows do not fit together (edited or corrupted backup): ${problems.join("; ")}`);
}
