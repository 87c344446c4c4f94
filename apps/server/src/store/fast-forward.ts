/**
 * The common single write — an edit or a delete of a live entry from its head version (a
 * fast-forward) — in ONE round trip on PostgreSQL: `BEGIN; <lock>; <conditional write>; COMMIT` as
 * one simple-protocol query. The write statement reads, after the lock (its own statement, so its
 * own snapshot: see store/README.md), the stored result of the opId and the path's head; only when
 * no result is stored and the head is live at exactly `baseVersion` with other content does it
 * append the version, move the head, take the next cursor, store the result, move the live-entry
 * counter and notify the new cursor (data-modifying CTEs: the effects and the result of
 * `decide`'s fast-forward in apply-operation.ts, one statement). Otherwise it writes nothing and
 * commits an empty transaction: a replay gets its stored result from what the statement read;
 * anything else (the head moved, a tombstone, the same content, a new path) returns null and the
 * caller takes the general protocol (apply-operation.ts), which reads again under the lock.
 */
import type { Operation, OperationResult } from "@teammem/protocol";
import { sha256Hex } from "@teammem/protocol";
import { textLiteral } from "./heads.js";
import { replayResult } from "./idempotency.js";
import { CHANGES_CHANNEL, inOneRoundTrip, lockSql } from "./namespace-transaction.js";
import type { Db } from "../db/database.js";
import type { WriteContext } from "./write-context.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The row the write statement returns (exactly one while the namespace exists). */
interface FastForwardRow {
  request_sha256: string | null;
  result: unknown;
  /** The cursor the write took; null when it wrote nothing. */
  written: string | number | null;
}

function optionalText(text: string | null): string {
  return text === null ? "NULL::text" : textLiteral(text);
}

function integer(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/**
 * The write statement (see the module docstring) for `op` at checked `path` with request hash
 * `hash`. Every value is inlined as a checked UUID, an integer, a fixed word or a hex-only text
 * literal ({@link textLiteral}).
 */
function fastForwardSql(ctx: WriteContext, op: Operation & { baseVersion: number }, path: string, hash: string): { sql: string; result: Omit<Extract<OperationResult, { status: "applied" }>, "cursor"> } {
  const ns = ctx.namespace.id;
  if (!UUID.test(ns)) throw new Error(`not a namespace id: ${ns}`);
  if (!UUID.test(ctx.author.id)) throw new Error(`not a principal id: ${ctx.author.id}`);
  const content = "delete" in op ? null : (op as { content: string }).content;
  const deleted = content === null;
  const sha256 = deleted ? null : sha256Hex(content);
  const sizeBytes = deleted ? 0 : Buffer.byteLength(content, "utf8");
  const version = op.baseVersion + 1;
  const result = { opId: op.opId, path, status: "applied" as const, version, sha256, deleted };
  const opId = textLiteral(op.opId);
  const pathSql = textLiteral(path);
  const sql = `WITH s AS (
      SELECT n.cursor, o.request_sha256, o.result, e.version, e.deleted, e.sha256
      FROM namespaces n
      LEFT JOIN operations o ON o.namespace_id = n.id AND o.op_id = ${opId}
      LEFT JOIN entries e ON e.namespace_id = n.id AND e.path = ${pathSql}
      WHERE n.id = '${ns}'),
    ok AS (SELECT s.cursor + 1 AS cursor, ${optionalText(content)} AS content FROM s
           WHERE s.request_sha256 IS NULL AND s.version = ${integer(op.baseVersion)} AND NOT s.deleted
             AND s.sha256 IS DISTINCT FROM ${optionalText(sha256)}),
    c AS (UPDATE namespaces SET cursor = ok.cursor, live_entries = live_entries + ${deleted ? -1 : 0}
          FROM ok WHERE namespaces.id = '${ns}' RETURNING namespaces.cursor),
    v AS (INSERT INTO versions (namespace_id, path, version, kind, deleted, content, sha256, size_bytes,
                                parent_version, base_version, author_id, author_name, client_id, op_id, cursor)
          SELECT '${ns}', ${pathSql}, ${integer(version)}, '${deleted ? "delete" : "write"}', ${deleted}, ok.content, ${optionalText(sha256)},
                 ${integer(sizeBytes)}, ${integer(op.baseVersion)}, NULL, '${ctx.author.id}', ${textLiteral(ctx.author.name)},
                 ${optionalText(ctx.clientId)}, ${opId}, ok.cursor FROM ok),
    e AS (UPDATE entries SET version = ${integer(version)}, deleted = ${deleted}, content = ok.content, sha256 = ${optionalText(sha256)},
                 size_bytes = ${integer(sizeBytes)}, cursor = ok.cursor, updated_at = now()
          FROM ok WHERE entries.namespace_id = '${ns}' AND entries.path = ${pathSql}),
    r AS (INSERT INTO operations (namespace_id, op_id, request_sha256, result)
          SELECT '${ns}', ${opId}, ${textLiteral(hash)}, ${textLiteral(JSON.stringify(result))}::jsonb || jsonb_build_object('cursor', ok.cursor)
          FROM ok),
    notified AS (SELECT pg_notify('${CHANGES_CHANNEL}', '${ns}:' || c.cursor::text) FROM c)
    SELECT s.request_sha256, s.result, (SELECT ok.cursor FROM ok) AS written, (SELECT count(*) FROM notified) AS notified FROM s`;
  return { sql, result };
}

/**
 * Applies `op` (already validated and re-scanned; `path` its checked path, `hash` its request
 * hash) as a fast-forward in one round trip when it is one.
 * @returns its result (`applied`, or the stored result of a replay), or null when it must take
 *   the general protocol: not on PostgreSQL through a `pg` pool (PGlite), a rename, a creation
 *   (`baseVersion` 0: new live paths need the clash and limit checks), or a head that is not live
 *   at `baseVersion` with other content (nothing was written).
 * @throws database errors (the transaction rolled back).
 */
export async function applyFastForward(db: Db, ctx: WriteContext, op: Operation, path: string, hash: string): Promise<OperationResult | null> {
  if ("renameFrom" in op || op.baseVersion < 1) return null;
  let result: ReturnType<typeof fastForwardSql>["result"] | undefined;
  const results = await inOneRoundTrip(db, () => {
    const built = fastForwardSql(ctx, op, path, hash);
    result = built.result;
    return `${lockSql(ctx.namespace.id)}; ${built.sql}`;
  });
  if (!results || !result) return null;
  const row = results[1]?.rows[0] as FastForwardRow | undefined;
  if (!row) return null;
  if (row.written !== null) return { ...result, cursor: Number(row.written) };
  if (row.request_sha256 !== null) return replayResult({ requestSha256: row.request_sha256, result: row.result as OperationResult }, op.opId, op.path, hash);
  return null;
}
