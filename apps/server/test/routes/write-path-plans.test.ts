/**
 * Issue 12 (load and cost): every statement the write path sends to PostgreSQL can use an index,
 * so a write costs the same in a namespace of 10 or 10,000 entries and operations. The plans are
 * those of the real statements: PostgreSQL's auto_explain reports the plan of every statement the
 * server's connections run (as notices), with sequential scans disabled, so a statement whose
 * indexes are unusable (e.g. a comparison under another collation) shows a "Seq Scan".
 */
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { createTestDatabase, type TestDatabase } from "../../src/testing.js";
import { opId } from "./harness.js";

const SECRET = "plans-jwt-secret-".repeat(3);

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}
interface Explained {
  "Query Text": string;
  Plan: PlanNode;
}

/** Every node of a plan tree, as "Node Type on relation using index". */
function nodes(plan: PlanNode): string[] {
  const self = `${plan["Node Type"]}${plan["Relation Name"] ? ` on ${plan["Relation Name"]}` : ""}${plan["Index Name"] ? ` using ${plan["Index Name"]}` : ""}`;
  return [self, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe("the write path's statements on postgres", () => {
  let tdb: TestDatabase;
  let app: FastifyInstance;
  let member: string;
  let admin: string;
  /** Plans reported by auto_explain while recording. */
  const plans: Explained[] = [];
  let recording = false;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres", inject("postgresUrl"));
    const pool = (tdb.database.db as unknown as { $client: pg.Pool }).$client;
    expect(pool).toBeInstanceOf(pg.Pool);
    // Every connection the pool opens from now on explains what it runs, as notices.
    const settings = new pg.Client({ connectionString: tdb.url });
    await settings.connect();
    const name = new URL(tdb.url!).pathname.slice(1);
    for (const setting of [
      "session_preload_libraries = 'auto_explain'",
      "auto_explain.log_min_duration = 0",
      "auto_explain.log_level = notice",
      "auto_explain.log_format = json",
      "auto_explain.log_nested_statements = on", // the statements of teammem_fast_forward (migration 0011)
      "enable_seqscan = off",
    ]) {
      await settings.query(`ALTER DATABASE ${name} SET ${setting}`);
    }
    await settings.end();
    pool.on("connect", (client) => {
      client.on("notice", (notice) => {
        const json = /plan:\s*(\{[\s\S]*\})\s*$/.exec(notice.message ?? "")?.[1];
        if (recording && json) plans.push(JSON.parse(json) as Explained);
      });
    });
    // The retention jobs are not the write path: their first run, on ready and not awaited, fell
    // inside the recording on a slow CI run (DELETE FROM operations WHERE created_at < ..., an
    // hourly scan of a table the job itself bounds; an index on created_at would cost every write).
    app = await buildApp({ db: tdb.database.db, jwtSecret: SECRET, limits: { rateLimitMax: 0 }, operationRetention: { retentionDays: 0 }, audit: { retentionDays: 0 } });
    member = (await issueToken(tdb.database.db, SECRET, { teamName: "acme", userName: "ann", role: "member" })).token;
    admin = (await issueToken(tdb.database.db, SECRET, { teamName: "acme", userName: "ada", role: "admin" })).token;
  });
  afterAll(async () => {
    await app?.close();
    await tdb?.dispose();
  });

  const call = (method: "POST" | "PUT", url: string, token: string, payload: object) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
  const batch = async (operations: object[]) => {
    const res = await call("POST", "/v1/namespaces/plans/batch", member, { clientId: "laptop-1", operations });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results as { status: string; version?: number }[];
  };

  it("uses an index for every lookup of every kind of write (no sequential scan)", async () => {
    for (let b = 0; b < 3; b++) {
      const ops = Array.from({ length: 100 }, (_, i) => ({ opId: opId("fill"), path: `fill/${b}/${i}.md`, baseVersion: 0, content: `line ${b} ${i}\n` }));
      expect((await batch(ops)).every((r) => r.status === "applied")).toBe(true);
    }
    recording = true;
    plans.length = 0;
    const notes = "one\ntwo\nthree\nfour\nfive\n";
    expect((await batch([{ opId: opId("new"), path: "notes.md", baseVersion: 0, content: notes }]))[0]).toMatchObject({ status: "applied", version: 1 });
    expect((await batch([{ opId: opId("edit"), path: "notes.md", baseVersion: 1, content: notes.replace("one", "ONE") }]))[0]).toMatchObject({ status: "applied" });
    expect((await batch([{ opId: opId("merge"), path: "notes.md", baseVersion: 1, content: notes.replace("five", "FIVE") }]))[0]).toMatchObject({ status: "merged" });
    expect((await batch([{ opId: opId("clash"), path: "notes.md", baseVersion: 1, content: notes.replace("one", "uno") }]))[0]).toMatchObject({ status: "conflict" });
    expect((await batch([{ opId: opId("del"), path: "fill/0/1.md", baseVersion: 1, delete: true }]))[0]).toMatchObject({ status: "applied", version: 2 });
    expect((await batch([{ opId: opId("again"), path: "fill/0/1.md", baseVersion: 2, content: "back\n" }]))[0]).toMatchObject({ status: "applied", version: 3 });
    const mv = { opId: opId("mv"), path: "moved/2.md", baseVersion: 0, content: "line 0 2\n", renameFrom: "fill/0/2.md", renameFromVersion: 1 };
    expect((await batch([mv]))[0]).toMatchObject({ status: "applied" });
    expect((await batch([mv]))[0]).toMatchObject({ status: "applied" }); // a replay: the stored result
    const cas = await call("PUT", "/v1/namespaces/plans/entry?path=cas.md", member, { baseVersion: 0, content: "cas\n" });
    expect(cas.statusCode, cas.body).toBe(200);
    const restored = await call("POST", "/v1/namespaces/plans/restore", member, { opId: opId("restore"), path: "fill/0/1.md", version: 1 });
    expect(restored.statusCode, restored.body).toBe(200);
    const purged = await call("POST", "/v1/admin/namespaces/plans/purge", admin, { path: "fill/0/3.md", version: 1, reason: "test" });
    expect(purged.statusCode, purged.body).toBe(200);
    // A batch of several operations: one set-based transaction (store/apply-batch.ts): edits, new paths (their clash check), a delete.
    const several = [
      ...Array.from({ length: 5 }, (_, i) => ({ opId: opId("run-edit"), path: `fill/1/${i}.md`, baseVersion: 1, content: `edited ${i}\n` })),
      ...Array.from({ length: 5 }, (_, i) => ({ opId: opId("run-new"), path: `run/${i}.md`, baseVersion: 0, content: `new ${i}\n` })),
      { opId: opId("run-del"), path: "fill/2/0.md", baseVersion: 1, delete: true },
    ];
    expect((await batch(several)).map((r) => r.status)).toEqual(several.map(() => "applied"));
    const feed = await app.inject({ method: "GET", url: "/v1/namespaces/plans/changes?since=0&limit=1000", headers: { authorization: `Bearer ${member}` } });
    expect(feed.statusCode, feed.body).toBe(200);
    recording = false;

    const explained = plans.map((p) => ({ query: p["Query Text"], nodes: nodes(p.Plan) }));
    const touching = explained.filter((p) => p.nodes.some((n) => / on (operations|entries|versions)\b/.test(n)));
    expect(touching.length).toBeGreaterThan(20);
    expect(explained.filter((p) => p.nodes.some((n) => n.startsWith("Seq Scan")))).toEqual([]);
    // The lookup of op id and path under the lock (batch writes): both primary keys.
    const readForWrite = explained.filter((p) => p.nodes.some((n) => n.endsWith(" on operations using operations_namespace_id_op_id_pk")) && p.nodes.some((n) => n.endsWith(" on entries using entries_namespace_id_path_pk")));
    expect(readForWrite.length).toBeGreaterThanOrEqual(8);
    // Among them the read of teammem_fast_forward (migration 0011), the single edit and delete above.
    expect(readForWrite.filter((p) => p.query.includes('"p_op_id"')).length).toBeGreaterThanOrEqual(2);
    // The set-based run's read, clash check and write: every lookup on an index of its table.
    const runStatements = explained.filter((p) => /jsonb_to_recordset|unnest\(\$/.test(p.query));
    expect(runStatements.length).toBeGreaterThanOrEqual(3);
    // The clash check's prefix range and equality lookups: the one live fold-key index (text_pattern_ops, migration 0015).
    expect(runStatements.some((p) => p.nodes.some((n) => n.endsWith(" on entries using entries_namespace_fold_key_live")))).toBe(true);
    // The run's read under the lock probes each primary key once per operation (an Index Scan under
    // a Nested Loop), never reads every stored result or head of the namespace into a hash or a bitmap:
    // its cost follows the batch, not the namespace's history (issue 12).
    const runReads = runStatements.filter((p) => p.query.includes("o.request_sha256"));
    expect(runReads.length).toBeGreaterThanOrEqual(1);
    for (const read of runReads) {
      expect(read.nodes.filter((n) => / on (operations|entries)\b/.test(n)).sort()).toEqual([
        "Index Scan on entries using entries_namespace_id_path_pk",
        "Index Scan on operations using operations_namespace_id_op_id_pk",
      ]);
    }
    // The change feed's purged versions: the partial index of purged versions only (migration 0010).
    const feedPlans = explained.filter((p) => p.query.includes("purged_at IS NOT NULL"));
    expect(feedPlans.length).toBeGreaterThanOrEqual(1);
    expect(feedPlans.every((p) => p.nodes.some((n) => n.endsWith(" on versions using versions_namespace_path_purged")))).toBe(true);
  });
});
