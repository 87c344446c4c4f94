/**
 * `teammem sync --allow <fingerprint> --reason ...` (issue 11, "Bypass with a reason"): a held-back
 * file is pushed once the team lets its secret through: at once under the immediate policy, after
 * an admin's approval under the approval policy; `status` shows the request's state; a teammate's
 * client accepts the approved value too; the value never travels in a request of its own.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, syncJson } from "../support/clients.js";

describe.each(DATABASE_KINDS)("sync --allow on %s", (kind) => {
  it("asks, waits for an admin, and pushes the file once approved; status shows each state", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    const adminCall = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (await res.json()) as any;
    };
    const secret = fakeGithubPat(4242);
    await writeFile(join(a, "team", "examples.md"), `# Examples\ntoken ${secret}\n`);
    const first = await sync(a, envA);
    expect(first.stderr).toMatch(/held back team\/examples\.md:2 github-pat \(.*\) fingerprint [0-9a-f]{32}/);
    const [held] = (await status(a)).heldBack;
    const fingerprint = held.findings[0].fingerprint as string;
    expect((await teammem(["status", "--dir", a])).stdout).toContain(`team/examples.md:2 github-pat`);

    const asked = await teammem(["sync", "--dir", a, "--allow", fingerprint, "--reason", "test_value", "the", "docs' sandbox token"], envA);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain("bypass requested for team/examples.md:2 github-pat: waiting for an admin's approval");
    expect((await status(a)).bypasses).toEqual([
      {
        id: expect.any(String),
        path: "team/examples.md",
        line: 2,
        ruleId: "github-pat",
        fingerprint,
        reason: "test_value",
        status: "pending",
        requestedAt: expect.any(String),
        decidedBy: null,
        note: null,
        revokedBy: null,
        revokeNote: null,
        currentKey: true,
      },
    ]);
    // The client names the file by its entry path, as the server stores it (old clients' team/ form: server test).
    expect(server.bodies.filter((b) => b.request === "POST /v1/team/bypasses").map((b) => (b.body as { path: string }).path)).toEqual(["examples.md"]);
    const pending = await adminCall("GET", "/v1/admin/bypasses");
    expect(pending.bypasses).toMatchObject([{ fingerprint, path: "examples.md", line: 2, requestedBy: "alice", reasonText: "the docs' sandbox token" }]);
    expect(JSON.stringify(pending)).not.toContain(secret);
    expect((await status(a)).heldBack).toHaveLength(1);

    await adminCall("POST", `/v1/admin/bypasses/${pending.bypasses[0].id}/approve`, { note: "sandbox only" });
    const after = await syncJson(a, envA);
    expect(after.code).toBe(0);
    expect(after.json.events).toEqual([{ type: "bypass-decided", path: "team/examples.md", line: 2, ruleId: "github-pat", status: "approved", by: "ada", note: "sandbox only" }]);
    expect(after.stderr).not.toContain("bypass");
    expect(after.json.pushed.applied).toEqual(["team/examples.md"]);
    const st = await status(a);
    expect([st.heldBack, st.bypasses[0].status, st.bypasses[0].decidedBy]).toEqual([[], "approved", "ada"]);
    expect((await teammem(["status", "--dir", a])).stdout).toContain("team/examples.md:2 github-pat (test_value): approved by ada: sandbox only");

    // A teammate pulls it, and may edit the file without it being held back on their side.
    expect((await sync(b, envB)).code).toBe(0);
    const pulled = await readFile(join(b, "team", "examples.md"), "utf8");
    expect(pulled).toContain(secret);
    await writeFile(join(b, "team", "examples.md"), `${pulled}more\n`);
    const edited = await syncJson(b, envB);
    expect([edited.json.pushed.applied, edited.json.heldBack]).toEqual([["team/examples.md"], []]);

    // Revoked with a note (try17 M2): the next change holding the value is held back again, that
    // sync says once that the bypass was revoked, and status (text, JSON, bypasses.json) follows.
    const revoked = await adminCall("POST", `/v1/admin/bypasses/${pending.bypasses[0].id}/revoke`, { note: "real token after all" });
    expect([revoked.bypass.status, revoked.bypass.revokedBy, revoked.bypass.revokeNote]).toEqual(["revoked", "ada", "real token after all"]);
    await writeFile(join(a, "team", "examples.md"), `# Examples\ntoken ${secret}\nand more\n`);
    const revokedLine = "bypass for team/examples.md:2 github-pat was revoked by ada: real token after all; files holding that secret are held back again";
    const seen = await sync(a, envA); // pulls B's edit first: merged, then held back
    expect(seen.code).toBe(0);
    expect(seen.stdout.split(revokedLine).length - 1).toBe(1);
    expect((await status(a)).heldBack.map((h: { path: string }) => h.path)).toEqual(["team/examples.md"]);
    expect((await status(a)).bypasses).toMatchObject([{ status: "revoked", decidedBy: "ada", note: "sandbox only", revokedBy: "ada", revokeNote: "real token after all" }]);
    const statusText = (await teammem(["status", "--dir", a])).stdout;
    expect(statusText).toContain("team/examples.md:2 github-pat (test_value): revoked by ada: real token after all");
    expect(statusText).not.toContain("approved by ada");
    const onDisk = JSON.parse(await readFile(join(a, ".teammem", "bypasses.json"), "utf8"));
    expect(onDisk.entries).toMatchObject([{ status: "revoked", revokedBy: "ada", revokeNote: "real token after all" }]);
    // Said once: the next sync neither repeats the event nor asks the server about a revoked request.
    const again = await syncJson(a, envA);
    expect(again.code).toBe(0);
    expect(again.json.events).toEqual([]);
    expect(again.stderr).not.toContain("revoked");
    expect(again.json.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/examples.md"]);
  });

  it("reaches the requester's client when denied, and when an approval is revoked without a note (--json event)", async () => {
    const { server, a, envA } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    const decide = (id: string, verb: string, body?: unknown) =>
      fetch(`${server.url}/v1/admin/bypasses/${id}/${verb}`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    await writeFile(join(a, "team", "d.md"), `t ${fakeGithubPat(11)}\n`);
    await writeFile(join(a, "team", "r.md"), `t ${fakeGithubPat(12)}\n`);
    await sync(a, envA);
    const byPath = new Map((await status(a)).heldBack.map((h: { path: string; findings: { fingerprint: string }[] }) => [h.path, h.findings[0]?.fingerprint]));
    for (const path of ["team/d.md", "team/r.md"]) {
      expect((await teammem(["sync", "--dir", a, "--allow", byPath.get(path) as string, "--reason", "will_fix"], envA)).code).toBe(0);
    }
    const [d, r] = (await status(a)).bypasses.map((b: { id: string }) => b.id);
    expect((await decide(d, "deny", { note: "rotate it instead" })).status).toBe(200);
    expect((await decide(r, "approve")).status).toBe(200);
    const decided = await syncJson(a, envA);
    expect(decided.json.events).toEqual([
      { type: "bypass-decided", path: "team/d.md", line: 1, ruleId: "github-pat", status: "denied", by: "ada", note: "rotate it instead" },
      { type: "bypass-decided", path: "team/r.md", line: 1, ruleId: "github-pat", status: "approved", by: "ada", note: null },
    ]);
    expect(decided.stderr).not.toContain("bypass");
    expect([decided.json.pushed.applied, decided.json.heldBack.map((h: { path: string }) => h.path)]).toEqual([["team/r.md"], ["team/d.md"]]);
    expect((await teammem(["status", "--dir", a])).stdout).toContain("team/d.md:1 github-pat (will_fix): denied by ada: rotate it instead");

    expect((await decide(r, "revoke")).status).toBe(200);
    const revoked = await syncJson(a, envA);
    expect(revoked.json.events).toEqual([{ type: "bypass-revoked", path: "team/r.md", line: 1, ruleId: "github-pat", by: "ada", note: null }]);
    expect(revoked.stderr).not.toContain("denied");
    expect((await status(a)).bypasses.map((b: { status: string; revokedBy: string | null; revokeNote: string | null }) => [b.status, b.revokedBy, b.revokeNote])).toEqual([
      ["denied", null, null],
      ["revoked", "ada", null],
    ]);
    expect((await teammem(["status", "--dir", a])).stdout).toContain("team/r.md:1 github-pat (will_fix): revoked by ada (held back again)");
  });

  it("is approved at once under the immediate policy and pushes in the same run", async () => {
    const { server, a, envA } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    await fetch(`${server.url}/v1/admin/policy`, {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ bypassPolicy: "immediate" }),
    });
    await writeFile(join(a, "team", "fp.md"), `not a secret: ${fakeGithubPat(77)}\n`);
    await sync(a, envA);
    const fingerprint = (await status(a)).heldBack[0].findings[0].fingerprint;
    const res = await teammem(["sync", "--dir", a, "--json", "--allow", fingerprint.toUpperCase(), "--reason", "false_positive"], envA);
    const json = JSON.parse(res.stdout);
    expect([res.code, json.bypass.status, json.bypass.decidedBy, json.pushed.applied]).toEqual([0, "approved", "policy", ["team/fp.md"]]);
  });

  it("says once when an approval no longer applies because the team's fingerprint key was rotated, and status shows it", async () => {
    const { server, a, envA } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    const adminCall = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    await adminCall("PUT", "/v1/admin/policy", { bypassPolicy: "immediate" });
    const secret = fakeGithubPat(88);
    await writeFile(join(a, "team", "k.md"), `t ${secret}\n`);
    await sync(a, envA);
    const fingerprint = (await status(a)).heldBack[0].findings[0].fingerprint;
    expect((await teammem(["sync", "--dir", a, "--allow", fingerprint, "--reason", "test_value"], envA)).code).toBe(0);
    expect((await status(a)).heldBack).toEqual([]);
    expect((await adminCall("POST", "/v1/admin/fingerprint-key/rotate")).status).toBe(200);
    await writeFile(join(a, "team", "k.md"), `t ${secret}\nmore\n`);
    const line = "bypass for team/k.md:1 github-pat no longer applies: the team's fingerprint key was rotated";
    const rotated = await syncJson(a, envA);
    expect(rotated.stderr.split(line).length - 1).toBe(1);
    expect(rotated.json.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/k.md"]);
    expect((await status(a)).bypasses).toMatchObject([{ status: "approved", currentKey: false }]);
    expect((await teammem(["status", "--dir", a])).stdout).toContain("team/k.md:1 github-pat (test_value): approved by policy (no longer applies: the team's fingerprint key was rotated)");
    expect((await syncJson(a, envA)).stderr).not.toContain("no longer applies");
  });

  it("refuses bad --allow/--reason input with exit 2 before contacting the server, and an unknown fingerprint with a pointer to status", async () => {
    const { a, envA } = await setup(kind);
    await writeFile(join(a, "team", "x.md"), `t ${fakeGithubPat(5)}\n`);
    await sync(a, envA);
    const fingerprint = (await status(a)).heldBack[0].findings[0].fingerprint;
    const cases: [string[], string][] = [
      [["--allow", fingerprint], "--allow needs --reason"],
      [["--reason", "test_value"], "--reason goes with --allow"],
      [["--allow", "abc", "--reason", "test_value"], "a fingerprint is 32 hex digits"],
      [["--allow", fingerprint, "--reason", "because"], "give false_positive, test_value or will_fix"],
      [["--allow", fingerprint, "--reason", "will_fix", "x".repeat(501)], "1-500 characters on one line"],
      [["--allow", "0".repeat(32), "--reason", "will_fix"], "no held-back team file holds a secret with fingerprint"],
    ];
    for (const [args, message] of cases) {
      const res = await teammem(["sync", "--dir", a, ...args], envA);
      expect({ args, code: res.code, has: res.stderr.includes(message) }).toEqual({ args, code: 2, has: true });
    }
    expect((await status(a)).bypasses).toEqual([]);
  });
  it("refuses a --reason note holding a credential here (secret_detected, exit 1): the note is never sent", async () => {
    const { a, envA } = await setup(kind);
    await writeFile(join(a, "team", "x.md"), `t ${fakeGithubPat(6)}\n`);
    await sync(a, envA);
    const fingerprint = (await status(a)).heldBack[0].findings[0].fingerprint;
    const note = fakeGithubPat(7);
    const res = await teammem(["sync", "--dir", a, "--json", "--allow", fingerprint, "--reason", "will_fix", "value", "is", note], envA);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout).error).toMatchObject({ code: "secret_detected", message: expect.stringContaining("the --reason note holds a credential (github-pat)") });
    expect(res.stdout + res.stderr).not.toContain(note);
    expect((await status(a)).bypasses).toEqual([]);
    expect((await status(a)).heldBack).toHaveLength(1);
  });
});
