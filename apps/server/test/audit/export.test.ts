/**
 * The audit export (issue 11): CSV and JSON Lines of every matching event, oldest first, streamed
 * from bounded batches, so a 100,000-event export runs in constant memory. Streaming is shown by
 * what the server logs per batch: the first rows reach the client when only a few batches of the
 * hundred have been read.
 */
import { request } from "node:http";
import { Writable } from "node:stream";
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AuditEvent, sha256Hex } from "@teammem/protocol";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../../src/testing.js";

const SECRET = "export-test-secret-".padEnd(40, "x");
const EVENTS = 100_000;
const BATCH = 1000;

describe.each(DATABASE_KINDS)("audit export on %s", (kind) => {
  let tdb: TestDatabase;
  let app: FastifyInstance;
  let url: string;
  let admin: string;
  let member: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase(kind, inject("postgresUrl"));
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    app = await buildApp({ db: tdb.database.db, jwtSecret: SECRET, logger: { level: "debug", stream }, limits: { rateLimitMax: 0 } });
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    admin = (await issueToken(tdb.database.db, SECRET, { teamName: "acme", userName: "ada", role: "admin" })).token;
    member = (await issueToken(tdb.database.db, SECRET, { teamName: "acme", userName: "ann", role: "member" })).token;
    // A path a spreadsheet would run as a formula, reported by a client.
    const report = await app.inject({
      method: "POST",
      url: "/v1/namespaces/web/block-reports",
      headers: { authorization: `Bearer ${member}` },
      payload: { path: "=HYPERLINK(1).md", sha256: sha256Hex("x"), findings: [{ ruleId: "github-pat", label: "GitHub", line: 2, column: 4 }] },
    });
    expect(report.statusCode).toBe(202);
  });
  afterAll(async () => {
    await app?.close();
    await tdb?.dispose();
  });

  const get = (path: string) => app.inject({ url: path, headers: { authorization: `Bearer ${admin}` } });

  it("exports JSON Lines: one AuditEvent per line, oldest first, the same events the list shows", async () => {
    const res = await get("/v1/admin/audit-events/export?format=jsonl");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="audit-events-[0-9TZ-]+\.jsonl"$/);
    const lines = res.body.trimEnd().split("\n").map((l) => AuditEvent.parse(JSON.parse(l)));
    const listed = (await get("/v1/admin/audit-events?limit=500")).json().events;
    expect(lines).toEqual([...listed].reverse());
    expect(lines.map((e) => e.path)).toContain("=HYPERLINK(1).md");
  });

  it("exports CSV with a header row, every field, findings as JSON, and formula-like cells quoted", async () => {
    const res = await get("/v1/admin/audit-events/export?format=csv&kind=client_blocked");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const [header, ...rows] = parse(res.body) as string[][];
    expect(header).toEqual([...Object.keys(AuditEvent.shape), "ruleIds", "fingerprints"]);
    expect(rows).toHaveLength(1);
    const row = Object.fromEntries(header!.map((h, i) => [h, rows[0]![i]]));
    expect(row).toMatchObject({ kind: "client_blocked", actor: "ann", namespace: "web", path: "'=HYPERLINK(1).md", ruleIds: "github-pat", fingerprints: "" });
    expect(JSON.parse(row["findings"]!)).toEqual([{ ruleId: "github-pat", label: expect.any(String), line: 2, column: 4 }]);
  });

  it(`streams a ${EVENTS.toLocaleString("en")}-event export in bounded batches: rows arrive while most batches are still unread`, async () => {
    await tdb.database.db.execute(sql`
      INSERT INTO audit_events (team_id, kind, actor_name, namespace, path, code, findings)
      SELECT t.id, 'upload_rejected', 'user' || (i % 7), 'ns-' || (i % 3), 'team/f' || i || '.md', 'secret_detected',
             jsonb_build_array(jsonb_build_object('ruleId', 'github-pat', 'line', i % 50 + 1, 'column', 1))
      FROM teams t, generate_series(1, ${EVENTS}) AS i WHERE t.name = 'acme'`);
    const batchLogs = () => logLines.filter((l) => l.includes('"msg":"audit export batch"')).map((l) => JSON.parse(l) as { batch: number; rows: number });
    const before = batchLogs().length;

    const { batchesAtFirstRow, lines } = await new Promise<{ batchesAtFirstRow: number; lines: number }>((resolve, reject) => {
      const req = request(`${url}/v1/admin/audit-events/export?format=jsonl&kind=upload_rejected`, { headers: { authorization: `Bearer ${admin}` } }, (res) => {
        expect(res.statusCode).toBe(200);
        let first: number | undefined;
        let count = 0;
        res.on("data", (chunk: Buffer) => {
          first ??= batchLogs().length - before;
          for (const byte of chunk) if (byte === 0x0a) count++;
        });
        res.on("end", () => resolve({ batchesAtFirstRow: first ?? -1, lines: count }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });

    expect(lines).toBe(EVENTS);
    const batches = batchLogs().slice(before);
    expect(batches).toHaveLength(EVENTS / BATCH);
    expect(Math.max(...batches.map((b) => b.rows))).toBe(BATCH);
    // Had the server read everything before sending, all 100 batches would be logged by now.
    expect(batchesAtFirstRow).toBeGreaterThanOrEqual(1);
    expect(batchesAtFirstRow).toBeLessThan(batches.length / 4);
  }, 300_000);
});
