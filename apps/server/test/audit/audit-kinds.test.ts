/**
 * Every audit event kind is produced by the real action (issue 11), with typed fields, the actor
 * from the token and never a token or secret value; the last test checks that no kind of the
 * protocol's list went unproduced here.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AUDIT_EVENT_KINDS, sha256Hex, type AuditEvent, type AuditEventKind } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { fakeGithubPat, randomChars } from "@teammem/scanner/testing";
import { buildApp } from "../../src/app.js";
import { issueToken } from "../../src/admin/tokens.js";
import { auditEvents } from "../../src/db/schema.js";
import { createTestDatabase, DATABASE_KINDS, rowsOf } from "../../src/testing.js";
import { inject } from "vitest";
import { createHarness, opId, type Harness } from "../routes/harness.js";
import { cli, cliDatabase, startCli, tempDir } from "../platform/cli-harness.js";

const SECRET = "test-jwt-secret-".repeat(3);

describe.each(DATABASE_KINDS)("audit event kinds on %s", (kind) => {
  let h: Harness;
  const produced = new Set<AuditEventKind>();
  beforeAll(async () => {
    h = await createHarness(kind);
  });
  afterAll(() => h?.close());

  /** The team's newest events of `kind` through the admin API (and noted as produced). */
  const latest = async (k: AuditEventKind, token = h.tokens.admin): Promise<AuditEvent[]> => {
    const res = await h.call("GET", `/v1/admin/audit-events?kind=${k}`, token);
    expect(res.statusCode).toBe(200);
    const found = res.json().events as AuditEvent[];
    if (found.length > 0) produced.add(k);
    return found;
  };
  const batch = (ns: string, token: string, operations: unknown[]) => h.call("POST", `/v1/namespaces/${ns}/batch`, token, { clientId: "dev-1", operations });

  it("upload_rejected: the server's re-scan refuses a token, recorded with rule, position and fingerprint, never the value", async () => {
    const pat = fakeGithubPat(1);
    await batch("k1", h.tokens.member, [{ opId: opId("u"), path: "notes.md", baseVersion: 0, content: `a\nkey=${pat}\n` }]);
    const [e] = await latest("upload_rejected");
    expect(e).toMatchObject({ actor: "ann", namespace: "k1", path: "notes.md", code: "secret_detected", fingerprintKeyId: 1 });
    expect(e!.findings).toEqual([{ ruleId: "github-pat", label: expect.any(String), line: 2, column: 5, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(JSON.stringify(e)).not.toContain(pat);
  });

  it("client_blocked: a block report, whose actor is the token's user whatever the body says (a body naming an actor is refused)", async () => {
    const report = { path: "x.md", sha256: sha256Hex("x"), findings: [{ ruleId: "github-pat", label: "GitHub", line: 1, column: 1 }] };
    const forged = await h.call("POST", "/v1/namespaces/k1/block-reports", h.tokens.member, { ...report, actor: "ada" });
    expect([forged.statusCode, forged.json().code]).toEqual([400, "invalid_request"]);
    expect((await h.call("POST", "/v1/namespaces/k1/block-reports", h.tokens.member, { ...report, clientId: "ada" })).statusCode).toBe(202);
    const [e] = await latest("client_blocked");
    expect(e).toMatchObject({ actor: "ann", clientId: "ada", namespace: "k1", path: "x.md" });
  });

  it("token_issued and token_revoked: typed token id, user and role, never the token", async () => {
    const issued = (await h.call("POST", "/v1/admin/tokens", h.tokens.admin, { user: "tia", role: "member" })).json();
    expect((await h.call("DELETE", `/v1/admin/tokens/${issued.tokenId}`, h.tokens.admin)).statusCode).toBe(200);
    for (const k of ["token_issued", "token_revoked"] as const) {
      const [e] = await latest(k);
      expect(e).toMatchObject({ actor: "ada", tokenId: issued.tokenId, targetUser: "tia", role: "member", code: null });
      expect(JSON.stringify(e)).not.toContain(issued.token.split(".")[2]);
    }
  });

  it("member_role_changed: the role before and after", async () => {
    const res = await h.call("PUT", "/v1/admin/members/rita", h.tokens.admin, { role: "member" });
    expect([res.statusCode, res.json()]).toEqual([200, { user: "rita", role: "member", previousRole: "reader" }]);
    const [e] = await latest("member_role_changed");
    expect(e).toMatchObject({ actor: "ada", targetUser: "rita", role: "member", previousRole: "reader" });
  });

  it("member_added, and member_role_changed for a token that raises a membership's role: by the admin of the token (try15 F4)", async () => {
    const issue = async (role: string) => expect((await h.call("POST", "/v1/admin/tokens", h.tokens.admin, { user: "ivy", role })).statusCode).toBe(201);
    await issue("reader");
    await issue("member");
    expect((await latest("member_added")).filter((e) => e.targetUser === "ivy")).toEqual([
      expect.objectContaining({ actor: "ada", targetUser: "ivy", role: "reader", previousRole: null, tokenId: null }),
    ]);
    const [raised] = await latest("member_role_changed");
    expect(raised).toMatchObject({ actor: "ada", targetUser: "ivy", role: "member", previousRole: "reader" });
    // A token of a lower role changes no membership, and records no change.
    await issue("reader");
    expect((await latest("member_role_changed"))[0]!.id).toBe(raised!.id);
    expect((await latest("member_added")).filter((e) => e.targetUser === "ivy")).toHaveLength(1);
  });

  it("team_created, epoch_rotated, backup_imported: the server CLI's team create, epoch rotate and import, by `cli`, in the team's log and its admin API, never a token (try15 F4)", async () => {
    const source = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const created = await cli(["team", "create", "globex", "--admin", "gina", ...source.args], source.env);
    expect(created.status, created.stderr).toBe(0);
    const token = created.stdout.trim();
    const rotated = await cli(["epoch", "rotate", "--reason", "restored a volume snapshot", ...source.args], source.env);
    expect(rotated.status, rotated.stderr).toBe(0);
    const [, rotatedEpoch, previousEpoch] = /new epoch: server \S+ epoch (\S+) .*; previous epoch (\S+)/.exec(rotated.stdout)!;
    const exported = await cli(["export", ...source.args], source.env);
    expect(exported.status, exported.stderr).toBe(0);
    const file = join(await tempDir(), "backup.jsonl");
    await writeFile(file, exported.stdout, { mode: 0o600 });
    const target = await cliDatabase(kind, inject("postgresUrl"), { seeded: true });
    const imported = await cli(["import", file, ...target.args], target.env);
    expect(imported.status, imported.stderr).toBe(0);
    const importedEpoch = /server \S+ epoch (\S+)/.exec((await cli(["epoch", "show", ...target.args], target.env)).stdout)![1];

    const listed = await cli(["audit", "list", "--team", "globex", "--json", ...target.args], target.env);
    const log = (JSON.parse(listed.stdout) as { events: AuditEvent[] }).events;
    expect(log.map((e) => [e.kind, e.actor])).toEqual([
      ["backup_imported", "cli"],
      ["epoch_rotated", "cli"],
      ["token_issued", "cli"],
      ["member_added", "cli"],
      ["team_created", "cli"],
    ]);
    const rows = Object.values((JSON.parse(exported.stdout.trimEnd().split("\n").at(-1)!) as { end: { rows: Record<string, number> } }).end.rows).reduce((a, b) => a + b, 0);
    expect(log[0]).toMatchObject({ epoch: importedEpoch, previousEpoch: rotatedEpoch, count: rows, reasonText: expect.stringContaining(`import of ${file}`) });
    expect(log[1]).toMatchObject({ epoch: rotatedEpoch, previousEpoch, reasonText: "restored a volume snapshot", count: null });
    expect(log[3]).toMatchObject({ targetUser: "gina", role: "admin", epoch: null });
    expect(log[4]).toMatchObject({ targetUser: null, tokenId: null, epoch: null, previousEpoch: null, reasonText: null });
    expect(JSON.stringify(log)).not.toContain(token.split(".")[2]);

    // The team's admins read them through the admin API, filtered by the new kinds.
    const server = await startCli(target.args, target.env);
    const res = await fetch(`${server.url}/v1/admin/audit-events?kind=team_created,member_added,epoch_rotated,backup_imported`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const viaApi = ((await res.json()) as { events: AuditEvent[] }).events;
    expect(viaApi.map((e) => [e.kind, e.epoch])).toEqual([
      ["backup_imported", importedEpoch],
      ["epoch_rotated", rotatedEpoch],
      ["member_added", null],
      ["team_created", null],
    ]);
    expect(await server.stop()).toBe(0);
    for (const k of ["team_created", "member_added", "epoch_rotated", "backup_imported"] as const) produced.add(k);
  }, 600_000);

  it("fingerprint_key_rotated: the new key's id", async () => {
    await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin);
    const [e] = await latest("fingerprint_key_rotated");
    expect(e).toMatchObject({ actor: "ada", fingerprintKeyId: 2 });
  });

  it("entry_restored: the version restored and the version it became", async () => {
    await batch("k2", h.tokens.member, [{ opId: opId("a"), path: "r.md", baseVersion: 0, content: "one\n" }]);
    await batch("k2", h.tokens.member, [{ opId: opId("b"), path: "r.md", baseVersion: 1, content: "two\n" }]);
    const restored = await h.call("POST", "/v1/namespaces/k2/restore", h.tokens.member2, { opId: opId("r"), path: "r.md", version: 1, clientId: "bob-laptop" });
    expect(restored.json()).toMatchObject({ status: "applied", version: 3 });
    const [e] = await latest("entry_restored");
    expect(e).toMatchObject({ actor: "bob", namespace: "k2", path: "r.md", version: 1, resultVersion: 3, clientId: "bob-laptop" });
  });

  it("conflict_recorded: the conflict record and the head it was recorded against", async () => {
    await batch("k3", h.tokens.member, [{ opId: opId("a"), path: "c.md", baseVersion: 0, content: "line\n" }]);
    await batch("k3", h.tokens.member, [{ opId: opId("b"), path: "c.md", baseVersion: 1, content: "head line\n" }]);
    const result = (await batch("k3", h.tokens.member2, [{ opId: opId("c"), path: "c.md", baseVersion: 1, content: "my line\n" }])).json().results[0];
    expect(result.status).toBe("conflict");
    const [e] = await latest("conflict_recorded");
    expect(e).toMatchObject({ actor: "bob", namespace: "k3", path: "c.md", conflictId: result.conflictId, version: 2, clientId: "dev-1" });
  });

  it("merge_holds_credential: two clean edits merged into a credential; rule, position and fingerprint, never the value (try14 F22)", async () => {
    const sid = `SK${randomChars(32, 31, "0123456789abcdef")}`;
    const secret = randomChars(32, 32);
    const base = "key:\n\nbetween\n\nsecret:\n";
    await batch("k3m", h.tokens.member, [{ opId: opId("a"), path: "t.md", baseVersion: 0, content: base }]);
    await batch("k3m", h.tokens.member, [{ opId: opId("b"), path: "t.md", baseVersion: 1, content: base.replace("key:", `TWILIO_API_KEY=${sid}`) }]);
    const result = (await batch("k3m", h.tokens.member2, [{ opId: opId("c"), path: "t.md", baseVersion: 1, content: base.replace("secret:", `TWILIO_API_SECRET=${secret}`) }])).json().results[0];
    expect([result.status, result.code]).toEqual(["conflict", "merge_holds_credential"]);
    const [e] = await latest("merge_holds_credential");
    expect(e).toMatchObject({ actor: "bob", namespace: "k3m", path: "t.md", conflictId: result.conflictId, version: 2, clientId: "dev-1", code: "merge_holds_credential" });
    expect(e!.findings).toEqual([{ ruleId: "twilio-api-key", label: expect.any(String), line: 5, column: 19, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(JSON.stringify(e)).not.toContain(secret);
  });

  it("bypass_requested, bypass_approved, bypass_denied, bypass_revoked: fingerprint, rule, path, line and reason, the requester as target, never the value", async () => {
    const pat = fakeGithubPat(7);
    const { fingerprintKey } = (await h.call("GET", "/v1/team/scan-policy", h.tokens.member)).json();
    const request = (seed: number) => {
      const [f] = scan(`x\ntoken ${fakeGithubPat(seed)}\n`, { fingerprintKey: fingerprintKey.key });
      return { namespace: "k4", path: "team/held.md", ruleId: f!.ruleId, line: f!.line, column: f!.column, fingerprint: f!.fingerprint, fingerprintKeyId: fingerprintKey.id, reason: "will_fix", reasonText: "rotating it this week", clientId: "ann-laptop" };
    };
    const first = request(7);
    const a = (await h.call("POST", "/v1/team/bypasses", h.tokens.member, first)).json().bypass;
    const b = (await h.call("POST", "/v1/team/bypasses", h.tokens.member, request(8))).json().bypass;
    await h.call("POST", `/v1/admin/bypasses/${a.id}/approve`, h.tokens.admin, { note: "ok for now" });
    await h.call("POST", `/v1/admin/bypasses/${b.id}/deny`, h.tokens.admin);
    await h.call("POST", `/v1/admin/bypasses/${a.id}/revoke`, h.tokens.admin);
    const where = { namespace: "k4", path: "held.md", clientId: "ann-laptop", targetUser: "ann", reason: "will_fix", reasonText: "rotating it this week", fingerprintKeyId: fingerprintKey.id };
    const finding = { ruleId: "github-pat", line: 2, column: 7, fingerprint: first.fingerprint };
    expect((await latest("bypass_requested")).find((e) => e.bypassId === a.id)).toMatchObject({ ...where, actor: "ann", policy: "approval", findings: [finding] });
    expect((await latest("bypass_approved"))[0]).toMatchObject({ ...where, actor: "ada", bypassId: a.id, note: "ok for now", findings: [finding] });
    expect((await latest("bypass_denied"))[0]).toMatchObject({ ...where, actor: "ada", bypassId: b.id });
    expect((await latest("bypass_revoked"))[0]).toMatchObject({ ...where, actor: "ada", bypassId: a.id, findings: [finding] });
    const byFingerprint = (await h.call("GET", `/v1/admin/audit-events?fingerprint=${first.fingerprint}`, h.tokens.admin)).json().events as AuditEvent[];
    expect(byFingerprint.map((e) => e.kind)).toEqual(["bypass_revoked", "bypass_approved", "bypass_requested"]);
    expect(JSON.stringify(byFingerprint)).not.toContain(pat);
  });

  it("bypass_policy_changed: each change of the team's policy with the new and the previous policy and the admin of the token; a repeat records nothing", async () => {
    const put = (policy: string) => h.call("PUT", "/v1/admin/policy", h.tokens.admin, { bypassPolicy: policy });
    expect((await put("immediate")).json()).toEqual({ bypassPolicy: "immediate" });
    expect((await put("immediate")).statusCode).toBe(200);
    const forged = await h.call("PUT", "/v1/admin/policy", h.tokens.admin, { bypassPolicy: "approval", actor: "ann" });
    expect([forged.statusCode, forged.json().code]).toEqual([400, "invalid_request"]);
    expect((await put("approval")).json()).toEqual({ bypassPolicy: "approval" });
    const events = await latest("bypass_policy_changed");
    expect(events.map((e) => [e.actor, e.previousPolicy, e.policy])).toEqual([
      ["ada", "immediate", "approval"],
      ["ada", "approval", "immediate"],
    ]);
    expect(events[0]).toMatchObject({ namespace: null, path: null, code: null, targetUser: null, note: null });
    // Both exports carry the previous policy too (oldest first).
    const jsonl = await h.call("GET", "/v1/admin/audit-events/export?format=jsonl&kind=bypass_policy_changed", h.tokens.admin);
    const exported = jsonl.body.trimEnd().split("\n").map((l) => JSON.parse(l) as AuditEvent);
    expect(exported.map((e) => [e.previousPolicy, e.policy])).toEqual([
      ["approval", "immediate"],
      ["immediate", "approval"],
    ]);
    const csv = await h.call("GET", "/v1/admin/audit-events/export?format=csv&kind=bypass_policy_changed", h.tokens.admin);
    const [header, ...cells] = parseCsv(csv.body) as string[][];
    expect(cells.map((c) => [c[header!.indexOf("previousPolicy")], c[header!.indexOf("policy")]])).toEqual([
      ["approval", "immediate"],
      ["immediate", "approval"],
    ]);
  });

  it("version_purged: the version, how many versions lost their content, and the reason", async () => {
    await batch("k5", h.tokens.member, [{ opId: opId("a"), path: "p.md", baseVersion: 0, content: "private\n" }]);
    const res = await h.call("POST", "/v1/admin/namespaces/k5/purge", h.tokens.admin, { path: "p.md", version: 1, reason: "private note" });
    expect(res.json()).toMatchObject({ versions: [1], tombstoneVersion: 2 });
    const [e] = await latest("version_purged");
    expect(e).toMatchObject({ actor: "ada", namespace: "k5", path: "p.md", version: 1, count: 1, reasonText: "private note" });
  });

  it("auth_denied: refused requests counted per team, code, address and token, without token material", async () => {
    const revoked = await issueToken(h.db, SECRET, { teamName: "acme", userName: "rob", role: "member" });
    await h.call("DELETE", `/v1/admin/tokens/${revoked.tokenId}`, h.tokens.admin);
    const forged = ["eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJ4In0", "c2lnbmF0dXJl"].join("."); // built from pieces: no token-shaped literal in the repository
    for (let i = 0; i < 3; i++) await h.app.inject({ url: "/v1/namespaces", headers: { authorization: `Bearer ${forged}` } });
    for (let i = 0; i < 2; i++) await h.call("GET", "/v1/namespaces", revoked.token);
    for (let i = 0; i < 2; i++) await h.call("GET", "/v1/admin/members", h.tokens.reader);
    await h.app.audit.flushAuthDenials();
    const events = await latest("auth_denied");
    expect(events.map((e) => [e.code, e.count, e.actor, e.tokenId]).sort()).toEqual(
      [
        ["forbidden", 2, "rita", expect.any(String)],
        ["token_revoked", 2, "rob", revoked.tokenId],
      ].sort(),
    );
    expect(events[0]).toMatchObject({ remoteAddress: "127.0.0.1", periodStart: expect.any(String), periodEnd: expect.any(String) });
    // A forged token names nobody: counted under no team, invisible to every team's admins.
    const anonymous = await rowsOf<{ code: string; count: number; actor_name: string }>(
      { db: h.db },
      sql`SELECT code, count, actor_name FROM audit_events WHERE kind = 'auth_denied' AND team_id IS NULL`,
    );
    expect(anonymous).toEqual([{ code: "unauthorized", count: 3, actor_name: "anonymous" }]);
    const all = JSON.stringify(await h.db.select().from(auditEvents));
    for (const token of [forged, revoked.token]) expect(all).not.toContain(token.split(".")[2]);
  });

  it("retention_purge: the scheduled job deletes events older than the retention and records each purge", async () => {
    const tdb = await createTestDatabase(kind, inject("postgresUrl"));
    const app = await buildApp({ db: tdb.database.db, jwtSecret: SECRET, audit: { retentionDays: 30, retentionIntervalMs: 60_000 } });
    try {
      const admin = await issueToken(tdb.database.db, SECRET, { teamName: "acme", userName: "ada", role: "admin" });
      const { id: teamId } = (await rowsOf<{ id: string }>(tdb.database, sql`SELECT id FROM teams WHERE name = 'acme'`))[0]!;
      await tdb.database.db.execute(sql`INSERT INTO audit_events (team_id, kind, actor_name, created_at)
        SELECT ${teamId}, 'token_issued', 'old', now() - interval '40 days' FROM generate_series(1, 5)`);
      await tdb.database.db.execute(sql`INSERT INTO audit_events (team_id, kind, actor_name, created_at) VALUES (${teamId}, 'token_issued', 'recent', now() - interval '10 days')`);
      await app.ready(); // the job runs when the app is ready, then every retentionIntervalMs
      const purges = async () =>
        (await app.inject({ url: "/v1/admin/audit-events?kind=retention_purge", headers: { authorization: `Bearer ${admin.token}` } })).json().events as AuditEvent[];
      await vi.waitFor(async () => expect(await purges()).toHaveLength(1), { timeout: 20_000 });
      const [purge] = await purges();
      expect(purge).toMatchObject({ actor: "server", count: 5, periodEnd: expect.any(String) });
      expect(Date.parse(purge!.periodEnd!)).toBeLessThan(Date.now() - 29 * 86_400_000);
      const left = await rowsOf<{ actor_name: string }>(tdb.database, sql`SELECT actor_name FROM audit_events WHERE kind = 'token_issued' ORDER BY id`);
      expect(left.map((r) => r.actor_name)).toEqual(["recent"]);
      // Nothing older is left, so running again deletes nothing and records nothing.
      expect(await app.audit.runRetention()).toBe(0);
      expect(await purges()).toHaveLength(1);
      // The cut-off is the database's now() minus the retention: a process clock 400 days ahead
      // deletes nothing more (try15 F8: it deleted every event). PGlite runs in this process and
      // reads its clock, so there the database's clock is the server's.
      if (kind === "postgres") {
        vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 400 * 86_400_000 });
        try {
          expect(await app.audit.runRetention()).toBe(0);
        } finally {
          vi.useRealTimers();
        }
        const kept = await rowsOf<{ actor_name: string }>(tdb.database, sql`SELECT actor_name FROM audit_events WHERE kind = 'token_issued' ORDER BY id`);
        expect(kept.map((r) => r.actor_name)).toEqual(["recent"]);
      }
      produced.add("retention_purge");
    } finally {
      await app.close();
      await tdb.dispose();
    }
  });

  it("leaves no kind of the protocol's list unproduced by a real action", () => {
    expect([...produced].sort()).toEqual([...AUDIT_EVENT_KINDS].sort());
  });
});
