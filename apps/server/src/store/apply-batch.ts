/**
 * A batch's operations of one namespace in ONE transaction (set-based): lock the namespace once,
 * read every head and stored result the run needs in one query, decide each operation in memory,
 * then write every version, head and stored result with one multi-row statement. A write path
 * with few round trips per batch instead of a transaction (and a commit) per operation.
 *
 * Only what is decided without reading more runs set-based: a replay, a `version_conflict`
 * refusal (base ahead of the head), a fast-forward (a new version or none), a new live path with
 * no clash in the database or in the run and room under the namespace limit. Everything else
 * (merges, conflicts, renames, clashes, a full namespace, refusals of the content or path) goes
 * through the general protocol of apply-operation.ts: the first such operation of a run is
 * decided inside the run's transaction after the run's writes so far (the database then holds
 * exactly what the per-operation path would see) and ends the run, or, when validation refuses
 * it, ends the run before it (the caller applies it on its own). Per operation the results are
 * those of {@link applyOperation}, in order, with cursors in operation order.
 */
import { pathFoldKey, sha256Hex, type Operation, type OperationResult } from "@teammem/protocol";
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { namedRows } from "../db/prepared-statement.js";
import { Refusal } from "../errors/refusal.js";
import { decide, nothingToDeleteResult, operationHash, unchangedResult } from "./apply-operation.js";
import { readHead, type Head, type WriteStateRow } from "./heads.js";
import { replayResult, storeOperation, type StoredOperation } from "./idempotency.js";
import { inNamespaceTransaction } from "./namespace-transaction.js";
import { ancestorKeys } from "./path-type-clash.js";
import { checkWritePath } from "./path-secrets.js";
import { checkContent, checkWellFormed } from "./validate-content.js";
import type { WriteContext } from "./write-context.js";

/** An operation that passed validation: its checked path, case-folded key and request hash. */
export interface Checked {
  op: Operation;
  path: string;
  foldKey: string;
  hash: string;
}

/** A version the run writes (and makes the head). */
interface PendingVersion {
  path: string;
  fold_key: string;
  version: number;
  kind: "write" | "delete";
  deleted: boolean;
  content: string | null;
  sha256: string | null;
  size_bytes: number;
  parent_version: number | null;
  op_id: string;
  cursor: number;
}

/** A result the run stores for replay. */
interface PendingResult {
  op_id: string;
  request_sha256: string;
  result: OperationResult;
}


/** An operation that may join a run as far as its path goes: not a rename, well-formed, a valid path. */
interface Candidate {
  op: Operation;
  path: string;
  foldKey: string;
}

/**
 * Each operation's check for a run, made once per batch however many runs look at it (a run's
 * check covers every later operation of the batch, so without it a batch whose runs end early
 * would re-scan the same contents for secrets once per run): null when the operation cannot run
 * (a rename, a path or content that validation refuses).
 */
export type RunChecks = Map<Operation, Checked | null>;

/** `op` as a run candidate, or null (a rename, a string that is not well-formed, a path validation refuses). */
function candidateFor(ctx: WriteContext, op: Operation): Candidate | null {
  if ("renameFrom" in op || checkWellFormed(op) !== null) return null;
  const checked = checkWritePath(ctx, op.path, "delete" in op ? "existing" : "new");
  if ("refusal" in checked) return null;
  return { op, path: checked.path, foldKey: pathFoldKey(checked.path) };
}

/** A candidate checked as a run needs it (see {@link RunChecks}): its content (size, re-scan) and request hash. */
function checkForRun(ctx: WriteContext, c: Candidate): Checked | null {
  if (!("delete" in c.op) && checkContent(ctx, c.op.content) !== null) return null;
  return { ...c, hash: operationHash(c.op) };
}

/**
 * The leading operations of `ops` that may share one transaction as far as their paths go: not a
 * rename, a valid path, no opId or case-folded path twice (a second write of a path reads the
 * first); an operation whose check failed before ends them.
 */
function runCandidates(ctx: WriteContext, ops: readonly Operation[], checks: RunChecks): Candidate[] {
  const candidates: Candidate[] = [];
  const opIds = new Set<string>();
  const keys = new Set<string>();
  for (const op of ops) {
    const known = checks.get(op);
    const candidate = known === undefined ? candidateFor(ctx, op) : known;
    if (candidate === null) {
      checks.set(op, null);
      break;
    }
    if (opIds.has(op.opId) || keys.has(candidate.foldKey)) break;
    opIds.add(op.opId);
    keys.add(candidate.foldKey);
    candidates.push(candidate);
  }
  return candidates;
}

/** The leading candidates whose content passes too: the run (the first refused ends it). */
function runnablePrefix(ctx: WriteContext, candidates: readonly Candidate[], checks: RunChecks): Checked[] {
  const run: Checked[] = [];
  for (const c of candidates) {
    let checked = checks.get(c.op);
    if (checked === undefined) {
      checked = checkForRun(ctx, c);
      checks.set(c.op, checked);
    }
    if (checked === null) break;
    run.push(checked);
  }
  return run;
}

/** Resolves once pending I/O had its turn: a query started before it has been written to the socket. */
const ioTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a run needs of a head to decide in memory: all but its content (compared by SHA-256). */
type HeadState = Omit<Head, "content">;

interface ReadRow extends Omit<WriteStateRow, "content"> {
  ord: number | string;
  live_entries: number;
}

/**
 * Under the lock, in one query: per operation its stored result and its path's head (without its
 * content); and the namespace's live-entry count. Each lookup is one probe of a primary key per
 * operation (a LATERAL subquery with LIMIT 1 is never turned into a join, so the planner cannot
 * choose to read every stored result or head of the namespace instead, whatever its statistics).
 */
async function readRun(tx: Tx, namespaceId: string, run: readonly Candidate[]): Promise<{ stored: (StoredOperation | null)[]; heads: (HeadState | null)[]; live: number }> {
  const rows = await namedRows<ReadRow>(
    tx,
    "teammem_batch_read",
    sql`
      SELECT i.ord, o.request_sha256, o.result, e.path, e.version, e.deleted, e.sha256, e.size_bytes, e.cursor,
             (SELECT n.live_entries FROM namespaces n WHERE n.id = ${namespaceId}) AS live_entries
      FROM unnest(${sql.param(run.map((c) => c.op.opId))}::text[], ${sql.param(run.map((c) => c.path))}::text[]) WITH ORDINALITY AS i(op_id, path, ord)
      LEFT JOIN LATERAL (SELECT o.request_sha256, o.result FROM operations o WHERE o.namespace_id = ${namespaceId} AND o.op_id = i.op_id LIMIT 1) o ON true
      LEFT JOIN LATERAL (SELECT e.path, e.version, e.deleted, e.sha256, e.size_bytes, e.cursor FROM entries e WHERE e.namespace_id = ${namespaceId} AND e.path = i.path LIMIT 1) e ON true`,
  );
  const stored: (StoredOperation | null)[] = run.map(() => null);
  const heads: (HeadState | null)[] = run.map(() => null);
  let live = 0;
  for (const r of rows) {
    const k = Number(r.ord) - 1;
    live = Number(r.live_entries);
    if (r.request_sha256 !== null) stored[k] = { requestSha256: r.request_sha256, result: r.result as OperationResult };
    if (r.path !== null) {
      heads[k] = { path: r.path, version: r.version!, deleted: r.deleted!, sha256: r.sha256, sizeBytes: r.size_bytes!, cursor: Number(r.cursor) };
    }
  }
  return { stored, heads, live };
}

/**
 * For each path in `paths` (case-folded keys) that would become live: whether a live entry of the
 * namespace clashes with it by case or as an ancestor or descendant (one query, every lookup on
 * the live fold-key indexes; the descendant range with the text_pattern_ops operators).
 */
async function clashingPaths(tx: Tx, namespaceId: string, candidates: readonly { ord: number; path: string; foldKey: string }[]): Promise<Set<number>> {
  if (candidates.length === 0) return new Set();
  const input = JSON.stringify(candidates.map((c) => ({ ord: c.ord, path: c.path, fold_key: c.foldKey, ancestors: ancestorKeys(c.foldKey) })));
  const rows = await namedRows<{ ord: number }>(
    tx,
    "teammem_batch_clashes",
    sql`
      SELECT i.ord FROM jsonb_to_recordset(${input}::jsonb) AS i(ord integer, path text, fold_key text, ancestors text[])
      WHERE EXISTS (SELECT 1 FROM entries e WHERE e.namespace_id = ${namespaceId} AND NOT e.deleted AND e.fold_key = i.fold_key AND e.path <> i.path)
         OR EXISTS (SELECT 1 FROM entries e WHERE e.namespace_id = ${namespaceId} AND NOT e.deleted AND e.fold_key = ANY (i.ancestors))
         OR EXISTS (SELECT 1 FROM entries e WHERE e.namespace_id = ${namespaceId} AND NOT e.deleted
                      AND e.fold_key ~>=~ (i.fold_key || '/') AND e.fold_key ~<~ (i.fold_key || '0'))`,
  );
  return new Set(rows.map((r) => Number(r.ord)));
}

/** Whether one of two case-folded keys is a proper ancestor of the other. */
function nested(a: string, b: string): boolean {
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Writes the run's versions (and heads), its stored results and the namespace's cursor and
 * live-entry counter in one statement.
 * @throws Error when a result could not be stored (an opId stored meanwhile outside the lock): the
 *   caller rolls the run back and applies the operations one by one.
 */
async function writeRun(tx: Tx, ctx: WriteContext, pending: PendingVersion[], results: PendingResult[], cursor: number, liveDelta: number): Promise<void> {
  if (pending.length === 0 && results.length === 0) return;
  const nsId = ctx.namespace.id;
  const column = <K extends keyof PendingVersion>(key: K) => sql.param(pending.map((p) => p[key]));
  const [row] = await namedRows<{ stored: number | string }>(
    tx,
    "teammem_batch_write",
    sql`
      WITH i AS (
        SELECT * FROM unnest(${column("path")}::text[], ${column("fold_key")}::text[], ${column("version")}::integer[], ${column("kind")}::text[],
          ${column("deleted")}::boolean[], ${column("content")}::text[], ${column("sha256")}::text[], ${column("size_bytes")}::integer[],
          ${column("parent_version")}::integer[], ${column("op_id")}::text[], ${column("cursor")}::bigint[])
          AS i(path, fold_key, version, kind, deleted, content, sha256, size_bytes, parent_version, op_id, cursor)),
      c AS (UPDATE namespaces SET cursor = ${cursor}, live_entries = live_entries + ${liveDelta}::integer WHERE id = ${nsId}),
      v AS (INSERT INTO versions (namespace_id, path, version, kind, deleted, content, sha256, size_bytes, parent_version, base_version,
                                  author_id, author_name, client_id, op_id, cursor)
            SELECT ${nsId}, path, version, kind, deleted, content, sha256, size_bytes, parent_version, NULL,
                   ${ctx.author.id}, ${ctx.author.name}, ${ctx.clientId}, op_id, cursor FROM i),
      e AS (INSERT INTO entries (namespace_id, path, fold_key, version, deleted, content, sha256, size_bytes, cursor, updated_at)
            SELECT ${nsId}, path, fold_key, version, deleted, content, sha256, size_bytes, cursor, now() FROM i
            ON CONFLICT (namespace_id, path) DO UPDATE SET
              fold_key = excluded.fold_key, version = excluded.version, deleted = excluded.deleted, content = excluded.content,
              sha256 = excluded.sha256, size_bytes = excluded.size_bytes, cursor = excluded.cursor, updated_at = excluded.updated_at),
      o AS (INSERT INTO operations (namespace_id, op_id, request_sha256, result)
            SELECT ${nsId}, op_id, request_sha256, result
            FROM unnest(${sql.param(results.map((r) => r.op_id))}::text[], ${sql.param(results.map((r) => r.request_sha256))}::text[],
                        ${sql.param(results.map((r) => r.result))}::jsonb[]) AS r(op_id, request_sha256, result)
            ON CONFLICT DO NOTHING RETURNING 1)
      SELECT count(*) AS stored FROM o`,
  );
  if (Number(row?.stored) !== results.length) throw new Error("an operation's result was stored meanwhile; the batch falls back to one transaction per operation");
}

/**
 * Applies the leading operations of `ops` in one transaction of `ctx`'s namespace (see the module
 * docstring). @returns their results, in order: at least one when a transaction ran, none when
 * the leading run is shorter than two operations (apply `ops[0]` with {@link applyOperation}).
 * `checks`: one map per batch, passed to each of its runs.
 * @throws database errors (the transaction rolled back: nothing of the run is stored).
 */
export async function applyRun(db: Db, ctx: WriteContext, ops: readonly Operation[], checks: RunChecks = new Map()): Promise<OperationResult[]> {
  const ahead = runCandidates(ctx, ops, checks);
  if (ahead.length < 2) return [];
  const nsId = ctx.namespace.id;
  return inNamespaceTransaction(db, ctx, async (tx, lockedCursor) => {
    // The read goes out for every candidate first; their contents are scanned and hashed while
    // PostgreSQL answers it (the checks' CPU overlaps the read's round trip). A content refused
    // among the first two leaves a run too short: nothing is written (a transaction for nothing).
    const reading = readRun(tx, nsId, ahead);
    reading.catch(() => {}); // awaited below; a rejection while the checks run is not unhandled
    await ioTurn();
    const run = runnablePrefix(ctx, ahead, checks);
    const { stored, heads, live: liveAtStart } = await reading;
    if (run.length < 2) return [];
    const candidates = run
      .map((c, ord) => ({ ord, path: c.path, foldKey: c.foldKey, head: heads[ord] ?? null, c }))
      .filter(({ ord, c, head }) => stored[ord] === null && !("delete" in c.op) && c.op.baseVersion === (head?.version ?? 0) && !(head && !head.deleted));
    const clashes = await clashingPaths(tx, nsId, candidates);
    const results: OperationResult[] = [];
    const pending: PendingVersion[] = [];
    const toStore: PendingResult[] = [];
    /** Case-folded keys the run made live (they were not). */
    const madeLive: string[] = [];
    let cursor = lockedCursor;
    let liveDelta = 0;
    for (let k = 0; k < run.length; k++) {
      const { op, path, foldKey, hash } = run[k]!;
      const prior = stored[k];
      if (prior) {
        results.push(replayResult(prior, op.opId, op.path, hash));
        continue;
      }
      const head = heads[k] ?? null;
      const headVersion = head?.version ?? 0;
      const live = head !== null && !head.deleted;
      if (op.baseVersion > headVersion) {
        const refusal = new Refusal("version_conflict", `baseVersion ${op.baseVersion} is newer than the head version ${headVersion}`, { currentVersion: headVersion });
        results.push({ opId: op.opId, path: op.path, status: "rejected", ...refusal.toBody() });
        continue;
      }
      const incoming = "delete" in op ? null : op.content;
      const simple =
        op.baseVersion === headVersion &&
        (incoming === null ||
          live ||
          (!clashes.has(k) && !madeLive.some((key) => nested(key, foldKey)) && liveAtStart + liveDelta < ctx.limits.maxEntriesPerNamespace));
      if (!simple) {
        // The general protocol, on the database as the run left it so far; it ends the run.
        await writeRun(tx, ctx, pending, toStore, cursor, liveDelta);
        // decide() needs the head's content (merges, conflict records): read it whole (the run wrote nothing at this path).
        const decision = await decide(tx, ctx, op, path, hash, cursor, head === null ? null : await readHead(tx, nsId, path));
        if (decision.final && !decision.stored) await storeOperation(tx, nsId, op.opId, hash, decision.result);
        results.push(decision.result);
        return results;
      }
      const sha256 = incoming === null ? null : sha256Hex(incoming);
      if ((incoming === null && !live) || (incoming !== null && live && head!.sha256 === sha256)) {
        // Nothing new: the head stands (a delete of a deleted path, a put of the head's content), or
        // there is nothing to delete (a path that never existed: not_found, stored for replay too).
        const result = head === null ? nothingToDeleteResult(op.opId, op.path) : unchangedResult(op.opId, path, head, headVersion, cursor);
        toStore.push({ op_id: op.opId, request_sha256: hash, result });
        results.push(result);
        continue;
      }
      cursor += 1;
      const deleted = incoming === null;
      const version = headVersion + 1;
      pending.push({
        path,
        fold_key: foldKey,
        version,
        kind: deleted ? "delete" : "write",
        deleted,
        content: incoming,
        sha256,
        size_bytes: incoming === null ? 0 : Buffer.byteLength(incoming, "utf8"),
        parent_version: head?.version ?? null,
        op_id: op.opId,
        cursor,
      });
      if (!deleted && !live) madeLive.push(foldKey);
      liveDelta += (deleted ? 0 : 1) - (live ? 1 : 0);
      const result: OperationResult = { opId: op.opId, path, status: "applied", version, sha256, deleted, cursor };
      toStore.push({ op_id: op.opId, request_sha256: hash, result });
      results.push(result);
    }
    await writeRun(tx, ctx, pending, toStore, cursor, liveDelta);
    return results;
  });
}
