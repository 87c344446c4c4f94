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
      },
    ]);
    const pending = await adminCall("GET", "/v1/admin/bypasses");
    expect(pending.bypasses).toMatchObject([{ fingerprint, path: "team/examples.md", line: 2, requestedBy: "alice", reasonText: "the docs' sandbox token" }]);
    expect(JSON.stringify(pending)).not.toContain(secret);
    expect((await status(a)).heldBack).toHaveLength(1);

    await adminCall("POST", `/v1/admin/bypasses/${pending.bypasses[0].id}/approve`, { note: "sandbox only" });
    const after = await syncJson(a, envA);
    expect(after.code).toBe(0);
    expect(after.stderr).toContain("bypass for team/examples.md:2 github-pat was approved by ada: sandbox only");
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

    // Revoked: the next change holding the value is held back again.
    await adminCall("POST", `/v1/admin/bypasses/${pending.bypasses[0].id}/revoke`);
    await writeFile(join(a, "team", "examples.md"), `# Examples\ntoken ${secret}\nand more\n`);
    await sync(a, envA); // pulls B's edit first: merged, then held back
    expect((await status(a)).heldBack.map((h: { path: string }) => h.path)).toEqual(["team/examples.md"]);
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
