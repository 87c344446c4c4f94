/**
 * Bypass with a reason (issue 11): a member asks that a held-back secret be let through (by its
 * fingerprint, never the value); the team's policy approves it at once or leaves it for an admin;
 * admins list, approve, deny and revoke; an approved fingerprint is allowed by the scan policy and
 * the server's re-scan until revoked or the key is rotated.
 */
import { describe, expect, it } from "vitest";
import type { Bypass } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { eq } from "drizzle-orm";
import { issueToken } from "../../src/admin/tokens.js";
import { recordAuditEvent } from "../../src/audit/events.js";
import { bypasses } from "../../src/db/schema.js";
import { DATABASE_KINDS, dumpAllRows } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("bypasses on %s", (kind) => {
  const h = useHarness(kind);

  const scanPolicy = async (token = h.tokens.member) =>
    (await h.call("GET", "/v1/team/scan-policy", token)).json() as { fingerprintKey: { id: number; key: string }; allowedFingerprints: string[] };
  /** A fresh fake token in a file, and the request a client would send for it. */
  const heldBack = async (seed: number, token = h.tokens.member) => {
    const secret = fakeGithubPat(seed);
    const content = `notes\nkey=${secret}\n`;
    const policy = await scanPolicy(token);
    const [finding] = scan(content, { fingerprintKey: policy.fingerprintKey.key });
    const request = {
      namespace: "acme/web",
      path: "team/keys.md",
      ruleId: finding!.ruleId,
      line: finding!.line,
      column: finding!.column,
      fingerprint: finding!.fingerprint,
      fingerprintKeyId: policy.fingerprintKey.id,
      reason: "test_value",
      reasonText: "a revoked sandbox token used in examples",
      clientId: "ann-laptop",
    };
    return { secret, content, request };
  };
  const ask = (body: unknown, token = h.tokens.member) => h.call("POST", "/v1/team/bypasses", token, body);
  const act = (id: string, action: string, body?: unknown, token = h.tokens.admin) => h.call("POST", `/v1/admin/bypasses/${id}/${action}`, token, body);
  const push = (content: string, path: string) =>
    h.call("POST", "/v1/namespaces/acme%2Fweb/batch", h.tokens.member, { operations: [{ opId: opId("p"), path, baseVersion: 0, content }] });

  it("does not take a teammem:allow marker on the line for a bypass: anyone can type it, so the write is refused", async () => {
    const secret = fakeGithubPat(12);
    for (const line of [`key=${secret} # teammem:allow`, `<!-- teammem:allow --> ${secret}`]) {
      const res = await push(`notes\n${line}\n`, "marked.md");
      expect(res.json().results[0]).toMatchObject({ status: "rejected", code: "secret_detected" });
    }
    expect((await dumpAllRows({ db: h.db })).includes(secret)).toBe(false);
  });

  it("leaves a request pending under the default approval policy; the secret stays refused until an admin approves it", async () => {
    expect((await h.call("GET", "/v1/admin/policy", h.tokens.admin)).json()).toEqual({ bypassPolicy: "approval" });
    const { content, request, secret } = await heldBack(11);
    const res = await ask(request);
    expect(res.statusCode).toBe(201);
    const bypass = res.json().bypass as Bypass;
    expect(bypass).toEqual({
      id: expect.any(String),
      status: "pending",
      fingerprint: request.fingerprint,
      fingerprintKeyId: 1,
      currentKey: true,
      ruleId: "github-pat",
      namespace: "acme/web",
      path: "keys.md",
      line: 2,
      column: 5,
      reason: "test_value",
      reasonText: "a revoked sandbox token used in examples",
      requestedBy: "ann",
      requestedAt: expect.any(String),
      decidedBy: null,
      decidedAt: null,
      note: null,
      revokedBy: null,
      revokedAt: null,
      revokeNote: null,
    });
    // Asking again answers with the same pending request.
    const again = await ask(request, h.tokens.member2);
    expect([again.statusCode, again.json().bypass.id]).toEqual([200, bypass.id]);
    expect((await push(content, "a.md")).json().results[0].code).toBe("secret_detected");
    expect((await scanPolicy()).allowedFingerprints).toEqual([]);

    const pending = (await h.call("GET", "/v1/admin/bypasses", h.tokens.admin)).json();
    expect(pending.bypasses.map((b: Bypass) => b.id)).toEqual([bypass.id]);
    const mine = (await h.call("GET", "/v1/team/bypasses?status=all", h.tokens.member)).json();
    expect(mine.bypasses.map((b: Bypass) => [b.id, b.status])).toEqual([[bypass.id, "pending"]]);
    expect((await h.call("GET", "/v1/team/bypasses?status=all", h.tokens.member2)).json().bypasses).toEqual([]);

    const approved = await act(bypass.id, "approve", { note: "fine, sandbox only" });
    expect(approved.statusCode).toBe(200);
    expect(approved.json().bypass).toMatchObject({ status: "approved", decidedBy: "ada", note: "fine, sandbox only", decidedAt: expect.any(String) });
    expect((await h.call("GET", `/v1/team/bypasses/${bypass.id}`, h.tokens.member)).json().bypass.status).toBe("approved");
    expect((await scanPolicy(h.tokens.reader)).allowedFingerprints).toEqual([request.fingerprint]);
    expect((await push(content, "a.md")).json().results[0]).toMatchObject({ status: "applied", version: 1 });

    // Revoked: the next write holding the secret is refused again. The revoke's note is kept
    // beside the approval's, shown wherever the request is, and in the revoke's audit event (try15 F6).
    const revoked = await act(bypass.id, "revoke", { note: "sandbox closed" });
    const revokedFields = { status: "revoked", revokedBy: "ada", revokedAt: expect.any(String), revokeNote: "sandbox closed", note: "fine, sandbox only" };
    expect(revoked.json().bypass).toMatchObject(revokedFields);
    expect((await h.call("GET", "/v1/admin/bypasses?status=revoked", h.tokens.admin)).json().bypasses).toEqual([expect.objectContaining({ id: bypass.id, ...revokedFields })]);
    expect((await h.call("GET", `/v1/admin/bypasses/${bypass.id}`, h.tokens.admin)).json().bypass).toMatchObject(revokedFields);
    expect((await h.call("GET", "/v1/team/bypasses?status=all", h.tokens.member)).json().bypasses).toEqual([expect.objectContaining({ id: bypass.id, ...revokedFields })]);
    const [revokeEvent] = (await h.call("GET", "/v1/admin/audit-events?kind=bypass_revoked", h.tokens.admin)).json().events;
    expect(revokeEvent).toMatchObject({ bypassId: bypass.id, actor: "ada", note: "sandbox closed" });
    expect((await scanPolicy()).allowedFingerprints).toEqual([]);
    expect((await push(`${content}more\n`, "b.md")).json().results[0].code).toBe("secret_detected");
    // The value itself is nowhere but in the entry it was allowed into.
    const dump = await dumpAllRows({ db: h.db });
    expect(dump.split(secret).length - 1).toBe(2); // entries head and its version
  });

  it("approves at once under the immediate policy, by `policy`", async () => {
    expect((await h.call("PUT", "/v1/admin/policy", h.tokens.admin, { bypassPolicy: "immediate" })).json()).toEqual({ bypassPolicy: "immediate" });
    try {
      const { content, request } = await heldBack(12);
      const res = await ask({ ...request, reason: "false_positive", reasonText: undefined });
      expect(res.statusCode).toBe(201);
      expect(res.json().bypass).toMatchObject({ status: "approved", decidedBy: "policy", reason: "false_positive", reasonText: null });
      expect((await push(content, "c.md")).json().results[0].status).toBe("applied");
    } finally {
      await h.call("PUT", "/v1/admin/policy", h.tokens.admin, { bypassPolicy: "approval" });
    }
  });

  it("denies a pending request, and refuses a second decision with bypass_not_pending and a revoke of an unapproved one with bypass_not_approved", async () => {
    const { request } = await heldBack(13);
    const id = (await ask(request)).json().bypass.id as string;
    expect((await act(id, "revoke")).json()).toMatchObject({ code: "bypass_not_approved", details: { status: "pending" } });
    const denied = await act(id, "deny", { note: "rotate it instead" });
    expect(denied.json().bypass).toMatchObject({ status: "denied", decidedBy: "ada", note: "rotate it instead" });
    for (const action of ["approve", "deny"]) {
      const res = await act(id, action);
      expect([res.statusCode, res.json().code, res.json().details]).toEqual([409, "bypass_not_pending", { status: "denied" }]);
    }
    // A denied request does not stop a new one for the same fingerprint.
    expect((await ask(request)).statusCode).toBe(201);
  });

  it("lists by status, newest first, in pages", async () => {
    const ids: string[] = [];
    for (const seed of [21, 22, 23]) ids.push((await ask((await heldBack(seed)).request)).json().bypass.id);
    const first = (await h.call("GET", "/v1/admin/bypasses?limit=2", h.tokens.admin)).json();
    expect(first.bypasses).toHaveLength(2);
    expect(first.nextBefore).toBe(first.bypasses[1].id);
    const rest = (await h.call("GET", `/v1/admin/bypasses?limit=2&before=${first.nextBefore}`, h.tokens.admin)).json();
    const all = [...first.bypasses, ...rest.bypasses].map((b: Bypass) => b.id);
    expect(all.slice(0, 3)).toEqual([...ids].reverse());
    expect(new Set(all).size).toBe(all.length);
    const denied = (await h.call("GET", "/v1/admin/bypasses?status=denied", h.tokens.admin)).json().bypasses as Bypass[];
    expect(denied.every((b) => b.status === "denied")).toBe(true);
  });

  it("refuses a request made with a rotated key (fingerprint_key_stale), and shows old approvals as not of the current key", async () => {
    const { request } = await heldBack(31);
    const id = (await ask(request)).json().bypass.id as string;
    await act(id, "approve");
    await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin);
    expect((await scanPolicy()).allowedFingerprints).toEqual([]);
    const res = await ask((await heldBack(32)).request);
    expect(res.statusCode).toBe(201);
    const stale = await ask(request);
    expect([stale.statusCode, stale.json().code, stale.json().details]).toEqual([409, "fingerprint_key_stale", { currentKeyId: 2 }]);
    expect((await h.call("GET", `/v1/admin/bypasses/${id}`, h.tokens.admin)).json().bypass).toMatchObject({ status: "approved", currentKey: false });
  });

  it("refuses to approve a request made under a key rotated away since (fingerprint_key_stale, nothing changed); it can still be denied", async () => {
    const { request } = await heldBack(33);
    const id = (await ask(request)).json().bypass.id as string;
    await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin);
    const keyId = (await scanPolicy()).fingerprintKey.id;
    expect(keyId).toBe(request.fingerprintKeyId + 1);
    const res = await act(id, "approve");
    expect([res.statusCode, res.json().code, res.json().details]).toEqual([409, "fingerprint_key_stale", { currentKeyId: keyId, requestedBy: "ann" }]);
    expect(res.json().message).toContain(`requested under fingerprint key ${request.fingerprintKeyId}, rotated away since`);
    expect(res.json().message).toContain("ask ann to request it again");
    expect((await h.call("GET", `/v1/admin/bypasses/${id}`, h.tokens.admin)).json().bypass).toMatchObject({ status: "pending", decidedBy: null, currentKey: false });
    expect((await scanPolicy()).allowedFingerprints).toEqual([]);
    expect((await act(id, "deny", { note: "asked again under key 2" })).json().bypass).toMatchObject({ status: "denied" });
  });

  it("stores and audits a request's file by its entry path, as block reports do: one path filter finds the file's whole story, events recorded with `team/` before too (try18 F3)", async () => {
    const { request } = await heldBack(34);
    const policy = await scanPolicy();
    const blocked = await h.call("POST", "/v1/namespaces/acme%2Fweb/block-reports", h.tokens.member, {
      path: "ci.md",
      sha256: "0".repeat(64),
      fingerprintKeyId: policy.fingerprintKey.id,
      findings: [{ ruleId: request.ruleId, label: "GitHub", line: request.line, column: request.column, fingerprint: request.fingerprint }],
    });
    expect(blocked.statusCode).toBe(202);
    const asked = (await ask({ ...request, path: "team/ci.md" })).json().bypass as Bypass;
    expect(asked.path).toBe("ci.md");
    await act(asked.id, "approve");
    // An event of an older server, which kept the client's `team/` lead (the audit log is append-only: never rewritten).
    const [row] = await h.db.select().from(bypasses).where(eq(bypasses.id, asked.id));
    await recordAuditEvent(h.db, {
      teamId: row!.teamId, actor: { id: null, name: "ann" }, kind: "bypass_revoked", bypassId: asked.id, namespace: "acme/web", path: "team/ci.md",
      clientId: null, ruleId: request.ruleId, line: request.line, column: null, fingerprint: request.fingerprint, fingerprintKeyId: request.fingerprintKeyId,
      reason: "test_value", reasonText: null, targetUser: "ann", policy: null, note: null,
    });
    const story = async (prefix: string) =>
      ((await h.call("GET", `/v1/admin/audit-events?pathPrefix=${encodeURIComponent(prefix)}`, h.tokens.admin)).json().events as { kind: string; path: string }[]).map((e) => `${e.kind} ${e.path}`);
    const whole = ["bypass_revoked team/ci.md", "bypass_approved ci.md", "bypass_requested ci.md", "client_blocked ci.md"];
    expect(await story("ci")).toEqual(whole);
    expect(await story("ci.md")).toEqual(whole);
    expect(await story("team/ci")).toEqual(["bypass_revoked team/ci.md"]); // the old row's own form still finds it
    expect(await story("cx")).toEqual([]);
  });

  it("keeps roles and teams apart: readers cannot request, members cannot decide, another team's admin sees nothing", async () => {
    const { request } = await heldBack(41);
    expect((await ask(request, h.tokens.reader)).json().code).toBe("forbidden");
    const id = (await ask(request)).json().bypass.id as string;
    for (const [method, url] of [
      ["GET", "/v1/admin/bypasses"],
      ["GET", `/v1/admin/bypasses/${id}`],
      ["POST", `/v1/admin/bypasses/${id}/approve`],
      ["GET", "/v1/admin/policy"],
    ] as const) {
      expect((await h.call(method, url, h.tokens.member)).statusCode).toBe(403);
    }
    expect((await h.call("PUT", "/v1/admin/policy", h.tokens.member, { bypassPolicy: "immediate" })).statusCode).toBe(403);
    const olgaAdmin = (await issueToken(h.db, "test-jwt-secret-".repeat(3), { teamName: "other", userName: "oscar", role: "admin" })).token;
    for (const action of ["approve", "deny", "revoke"]) expect((await act(id, action, undefined, olgaAdmin)).json().code).toBe("not_found");
    expect((await h.call("GET", `/v1/admin/bypasses/${id}`, olgaAdmin)).statusCode).toBe(404);
    expect((await h.call("GET", `/v1/team/bypasses/${id}`, h.tokens.otherTeam)).statusCode).toBe(404);
    expect((await h.call("GET", "/v1/admin/bypasses?status=all", olgaAdmin)).json().bypasses).toEqual([]);
    expect((await h.call("GET", `/v1/team/bypasses/${id}`, h.tokens.member2)).statusCode).toBe(404);
  });

  it("refuses bad input with invalid_request, a credential in free text with secret_detected, and stores nothing", async () => {
    const { request } = await heldBack(51);
    const before = (await h.call("GET", "/v1/admin/bypasses?status=all&limit=500", h.tokens.admin)).json().bypasses.length;
    const bad: [string, unknown][] = [
      ["fingerprint not hex", { ...request, fingerprint: "zz" }],
      ["unknown reason", { ...request, reason: "because" }],
      ["line 0", { ...request, line: 0 }],
      ["rule id not kebab-case", { ...request, ruleId: "GitHub PAT" }],
      ["two-line reason text", { ...request, reasonText: "one\ntwo" }],
      ["reason text too long", { ...request, reasonText: "x".repeat(501) }],
      ["unknown field", { ...request, value: "x" }],
      ["bad namespace", { ...request, namespace: "../x" }],
      ["no fingerprint", { ...request, fingerprint: undefined }],
    ];
    for (const [what, body] of bad) {
      const res = await ask(body);
      expect({ what, status: res.statusCode, code: res.json().code }).toEqual({ what, status: 400, code: "invalid_request" });
    }
    const leaked = await ask({ ...request, reasonText: `it is ${fakeGithubPat(52)}` });
    expect([leaked.statusCode, leaked.json().code]).toEqual([422, "secret_detected"]);
    expect(leaked.body).not.toContain(fakeGithubPat(52));
    const id = (await ask(request)).json().bypass.id as string;
    expect((await act(id, "deny", { note: `see ${fakeGithubPat(53)}` })).json().code).toBe("secret_detected");
    expect((await act(id, "approve", { note: "" })).json().code).toBe("invalid_request");
    expect((await act(id, "approve", { verdict: "yes" })).json().code).toBe("invalid_request");
    expect((await act("not-a-uuid", "approve")).json().code).toBe("invalid_request");
    expect((await h.call("GET", "/v1/admin/bypasses?status=maybe", h.tokens.admin)).json().code).toBe("invalid_request");
    expect((await h.call("GET", "/v1/admin/bypasses?limit=0", h.tokens.admin)).json().code).toBe("invalid_request");
    expect((await h.call("GET", `/v1/admin/bypasses?before=${crypto.randomUUID()}`, h.tokens.admin)).json().code).toBe("invalid_request");
    expect((await h.call("PUT", "/v1/admin/policy", h.tokens.admin, { bypassPolicy: "never" })).json().code).toBe("invalid_request");
    expect((await h.call("GET", `/v1/admin/bypasses/${id}`, h.tokens.admin)).json().bypass.status).toBe("pending");
    const after = (await h.call("GET", "/v1/admin/bypasses?status=all&limit=500", h.tokens.admin)).json().bypasses.length;
    expect(after).toBe(before + 1);
    expect(await dumpAllRows({ db: h.db })).not.toContain(fakeGithubPat(52));
    expect(await dumpAllRows({ db: h.db })).not.toContain(fakeGithubPat(53));
  });
});
