/**
 * Credentials in names: an entry path, a namespace name, a client id, a block report's free-text
 * fields, a logged URL. None may be stored, synced, audited or logged verbatim.
 */
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { fakeGithubPat, randomChars } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import type { Db } from "../../src/db/database.js";
import { auditEvents } from "../../src/db/schema.js";
import { opId, useHarness } from "./harness.js";
import { takeTestDatabase } from "../support/database.js";

/** Every row of every public table as text. */
async function dumpRows(db: Db): Promise<string> {
  const rows = (q: ReturnType<typeof sql>) => db.execute(q) as unknown as Promise<{ rows: Record<string, string>[] }>;
  const tables = (await rows(sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows;
  let dump = "";
  for (const t of tables) dump += (await rows(sql.raw(`SELECT t::text AS row FROM "${t.table_name}" t`))).rows.map((r) => r.row).join("\n") + "\n";
  return dump;
}

const awsKeyId = (seed: number) => "AKIA" + randomChars(16, seed, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");

describe.each(DATABASE_KINDS)("credentials in names on %s", (kind) => {
  const h = useHarness(kind);
  const batch = (ns: string, body: unknown) => h.call("POST", `/v1/namespaces/${ns}/batch`, h.tokens.member, body);

  it("refuses a batch write whose path holds an AWS key id with secret_detected at the path's column, stores nothing and audits the redacted path", async () => {
    const key = awsKeyId(11);
    const path = `team/${key}/notes.md`;
    const res = await batch("names1", { operations: [{ opId: "path-secret-1", path, baseVersion: 0, content: "clean\n" }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().results[0]).toEqual({
      opId: "path-secret-1",
      path,
      status: "rejected",
      code: "secret_detected",
      message: expect.stringContaining("the path holds a credential"),
      details: { where: "path" },
      findings: [{ ruleId: "aws-access-token", label: expect.any(String), line: 1, column: 6 }],
    });
    // a delete of such a path is refused the same way
    const del = await batch("names1", { operations: [{ opId: opId("d"), path, baseVersion: 1, delete: true }] });
    expect(del.json().results[0]).toMatchObject({ status: "rejected", code: "secret_detected" });
    const audit = (await h.db.select().from(auditEvents)).filter((e) => e.namespace === "names1");
    expect(audit[0]).toMatchObject({
      kind: "upload_rejected",
      path: "team/[REDACTED:aws-access-token]/notes.md",
      code: "secret_detected",
      findings: [{ ruleId: "aws-access-token", line: 1, column: 6, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }],
    });
    expect(await dumpRows(h.db)).not.toContain(key);
  });

  it("refuses PUT /entry of a file named after a GitHub token with 422 secret_detected and stores nothing", async () => {
    const token = fakeGithubPat(77);
    const path = `team/token=${token}.md`;
    const res = await h.call("PUT", `/v1/namespaces/names2/entry?path=${encodeURIComponent(path)}`, h.tokens.member, { baseVersion: 0, content: "x\n" });
    expect([res.statusCode, res.json()]).toEqual([
      422,
      {
        code: "secret_detected",
        message: expect.stringContaining("the path holds a credential"),
        details: { where: "path" },
        findings: [{ ruleId: "github-pat", label: expect.any(String), line: 1, column: 12 }],
      },
    ]);
    const dump = await dumpRows(h.db);
    expect(dump).not.toContain(token);
    expect(dump).toContain("team/token=[REDACTED:github-pat].md");
  });

  it("refuses a namespace name or a clientId holding a credential before creating anything", async () => {
    const token = fakeGithubPat(78);
    const created = await h.call("PUT", `/v1/namespaces/${token}`, h.tokens.member);
    expect([created.statusCode, created.json()]).toEqual([
      422,
      { code: "secret_detected", message: expect.stringContaining("namespace holds a credential"), details: { field: "namespace", findings: [expect.objectContaining({ ruleId: "github-pat", line: 1, column: 1 })] } },
    ]);
    const auto = await batch(token, { operations: [{ opId: opId("a"), path: "a.md", baseVersion: 0, content: "a\n" }] });
    expect([auto.statusCode, auto.json().code]).toEqual([422, "secret_detected"]);
    const client = await batch("names3", { clientId: `laptop-${token}`, operations: [{ opId: opId("c"), path: "a.md", baseVersion: 0, content: "a\n" }] });
    expect([client.statusCode, client.json().details.field]).toEqual([422, "clientId"]);
    const list = (await h.call("GET", "/v1/namespaces", h.tokens.reader)).json().namespaces.map((n: { name: string }) => n.name);
    expect(list).not.toContain(token);
    expect(list).not.toContain("names3");
    expect(await dumpRows(h.db)).not.toContain(token);
  });

  it("stores a block report's catalog label and redacted path, never the client's free text", async () => {
    const token = fakeGithubPat(79);
    const report = (over: Record<string, unknown>, finding: Record<string, unknown> = {}) =>
      h.call("POST", "/v1/namespaces/names4/block-reports", h.tokens.member, {
        clientId: "laptop-1",
        path: "team/leak.md",
        sha256: sha256Hex("x"),
        findings: [{ ruleId: "github-pat", label: "GitHub", line: 2, column: 3, ...finding }],
        ...over,
      });
    expect((await report({}, { label: `my token is ${token}` })).statusCode).toBe(202);
    expect((await report({ path: `team/${token}.md` })).statusCode).toBe(202);
    expect((await report({}, { ruleId: "acme-internal-key", label: token })).statusCode).toBe(202);
    for (const bad of [{ fingerprint: token }, { fingerprint: "ABCDEF0123456789ABCDEF0123456789" }, { ruleId: token }, { ruleId: "x".repeat(65) }, { ruleId: "Has Spaces" }]) {
      const res = await report({}, bad);
      expect([JSON.stringify(bad), res.statusCode, res.json().code]).toEqual([JSON.stringify(bad), 400, "invalid_request"]);
    }
    const events = (await h.db.select().from(auditEvents)).filter((e) => e.namespace === "names4");
    expect(events.map((e) => [e.path, e.findings])).toEqual([
      ["team/leak.md", [{ ruleId: "github-pat", label: expect.stringContaining("GitHub"), line: 2, column: 3 }]],
      ["team/[REDACTED:github-pat].md", [{ ruleId: "github-pat", label: expect.stringContaining("GitHub"), line: 2, column: 3 }]],
      ["team/leak.md", [{ ruleId: "acme-internal-key", line: 2, column: 3 }]],
    ]);
    expect((events[0]!.findings as { label: string }[])[0]!.label).not.toBe("GitHub");
    expect(await dumpRows(h.db)).not.toContain(token);
  });
});

describe("request logs", () => {
  it("never hold a credential from the URL, plain or percent-encoded", async () => {
    const tdb = await takeTestDatabase("pglite");
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const secret = "log-test-secret-".repeat(3);
    const app = await buildApp({ db: tdb.database.db, jwtSecret: secret, logger: { level: "info", stream }, limits: { rateLimitMax: 0 } });
    try {
      const { token: bearer } = await issueToken(tdb.database.db, secret, { teamName: "t", userName: "u", role: "member" });
      const gh = fakeGithubPat(80);
      const aws = awsKeyId(12);
      for (const url of [`/v1/namespaces/ns/entry?path=team/token=${gh}.md`, `/v1/namespaces/ns/entry?path=${encodeURIComponent(`team/${aws}/x.md`)}`, `/v1/namespaces/${gh}/changes?since=0`]) {
        await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${bearer}` } });
      }
      const log = lines.join("");
      expect(log).toContain("incoming request");
      expect(log).toContain("[REDACTED:github-pat]");
      expect(log).toContain("[REDACTED:aws-access-token]");
      expect(log).not.toContain(gh);
      expect(log).not.toContain(aws);
      expect(log).not.toContain(bearer);
    } finally {
      await app.close();
      await tdb.dispose();
    }
  });

  it("never hold the value of a query parameter no route takes, whatever it looks like; keep those of parameters routes take (review note)", async () => {
    const tdb = await takeTestDatabase("pglite");
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const secret = "log-test-secret-".repeat(3);
    const app = await buildApp({ db: tdb.database.db, jwtSecret: secret, logger: { level: "info", stream }, limits: { rateLimitMax: 0 } });
    try {
      const { token: bearer } = await issueToken(tdb.database.db, secret, { teamName: "t", userName: "u", role: "admin" });
      // Made up at test time: a JWT-shaped value, a password and an API key no scanner rule knows, a key that is itself a token.
      const jwt = [Buffer.from('{"alg":"HS256"}').toString("base64url"), Buffer.from('{"sub":"made-up"}').toString("base64url"), randomChars(43, 5)].join(".");
      const password = `Pw-${randomChars(20, 6)}`;
      const apiKey = randomChars(40, 7);
      const keyAsName = fakeGithubPat(81);
      const urls = [
        `/v1/namespaces?access_token=${jwt}`,
        `/v1/admin/bypasses?status=all&password=${password}`,
        `/v1/admin/audit-events?kind=token_issued&api_key=${encodeURIComponent(apiKey)}`,
        `/v1/admin/tokens?${keyAsName}=1`,
        `/v1/namespaces/ns/entry?path=team/plain-note.md`,
      ];
      for (const url of urls) await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${bearer}` } });
      const logged = lines.flatMap((l) => {
        const entry = JSON.parse(l) as { req?: { url: string } };
        return entry.req ? [entry.req.url] : [];
      });
      expect(logged).toEqual([
        "/v1/namespaces?access_token=[redacted]",
        "/v1/admin/bypasses?status=all&password=[redacted]",
        "/v1/admin/audit-events?kind=token_issued&api_key=[redacted]",
        "/v1/admin/tokens?[redacted]=[redacted]",
        "/v1/namespaces/ns/entry?path=team/plain-note.md",
      ]);
      const log = lines.join("");
      for (const value of [jwt, password, apiKey, keyAsName, encodeURIComponent(apiKey)]) expect(log).not.toContain(value);
    } finally {
      await app.close();
      await tdb.dispose();
    }
  });
});
