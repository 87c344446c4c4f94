/**
 * Issue 8 leftovers found in a try-out: `status` asks the server before saying "everything synced"
 * (a restored server means a reconciliation is pending; an unreachable one is said so), the
 * reconcile line counts what was sent and names files refused here, watch says where a file was
 * refused, server messages are printed redacted, and doctor reports a namespace holding a
 * credential as a FAIL line and goes on.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { formatLiveEvent, ServerError } from "@teammem/client";
import { teammem } from "../support/cli.js";
import { setup, syncJson } from "../support/clients.js";
import { converge, reconciledEvents, team, write } from "../support/reconcile-team.js";

describe("status asks the server before saying everything synced", () => {
  it("restored server: reconciliation pending; stopped server: not reached, as of the last sync; --offline skips the probe", async () => {
    const t = await team("pglite");
    await write(t.a, "a.md", "a1\n");
    await converge(t);
    const backup = await t.server.backup();
    await write(t.a, "b.md", "b1\n");
    await converge(t);
    const synced = await teammem(["status", "--dir", t.b], t.env.b);
    expect(synced.stdout).toContain("everything synced");
    expect(JSON.parse((await teammem(["status", "--dir", t.b, "--json"], t.env.b)).stdout).serverCheck).toEqual({
      checked: true,
      reachable: true,
      reconcilePending: false,
      waiting: { changes: 0, more: false },
    });

    await t.server.stop();
    const down = await teammem(["status", "--dir", t.b], t.env.b);
    expect(down.code).toBe(0);
    expect(down.stdout).not.toContain("\neverything synced");
    expect(down.stdout).toMatch(/server not reached: .+; as of the last sync at \d{4}-\d\d-\d\dT[^:]+:\d\d:\d\d.*: everything synced/);
    const downJson = JSON.parse((await teammem(["status", "--dir", t.b, "--json"], t.env.b)).stdout);
    expect(downJson.serverCheck).toMatchObject({ checked: true, reachable: false, reconcilePending: null, error: expect.any(String) });
    const offline = await teammem(["status", "--dir", t.b, "--offline", "--json"], t.env.b);
    expect(JSON.parse(offline.stdout).serverCheck).toEqual({ checked: false, reachable: null, reconcilePending: null });

    await t.server.start();
    await t.server.restore(backup);
    const restored = await teammem(["status", "--dir", t.b], t.env.b);
    expect(restored.stdout).not.toContain("everything synced");
    expect(restored.stdout).toContain("reconciliation pending: run teammem sync");
    expect(JSON.parse((await teammem(["status", "--dir", t.b, "--json"], t.env.b)).stdout).serverCheck).toMatchObject({
      checked: true,
      reachable: true,
      reconcilePending: true,
    });
    // Restored without a new epoch: the server's cursor is below ours.
    expect((await syncJson(t.b, t.env.b)).code).toBe(0);
    const again = await t.server.backup();
    await write(t.b, "c.md", "c1\n");
    expect((await syncJson(t.b, t.env.b)).code).toBe(0);
    await t.server.restore(again, { bumpEpoch: false });
    const behind = await teammem(["status", "--dir", t.b], t.env.b);
    expect(behind.stdout).toContain("reconciliation pending: run teammem sync");
    expect(behind.stdout).not.toContain("everything synced");
  });
});

describe("the reconcile line counts what was sent", () => {
  it("files the server lacks but refused here as too large are named, not counted as sent", async () => {
    const t = await team("pglite");
    await write(t.a, "a.md", "a\n");
    await converge(t);
    await t.server.replace("pglite");
    t.env.b = { TEAMMEM_TOKEN: await t.server.token("bob") };
    const big = "x".repeat(300 * 1024) + "\n";
    await write(t.b, "big.txt", big);
    await write(t.b, "small.md", "small\n");
    const r = await syncJson(t.b, t.env.b);
    expect(r.code).toBe(0);
    expect(reconciledEvents(r.json)).toEqual([
      expect.objectContaining({ toSend: 3, sent: 2, notSent: [{ path: "team/big.txt", reason: expect.stringContaining("entry_too_large") }] }),
    ]);
    await t.server.replace("pglite");
    t.env.a = { TEAMMEM_TOKEN: await t.server.token("alice") };
    await write(t.a, "big.txt", big);
    const text = await teammem(["sync", "--dir", t.a], t.env.a);
    expect(text.stdout).toMatch(/1 local file\(s\) the server lacks sent as new versions; not sent: team\/big\.txt \(entry_too_large, refused here/);
  }, 150_000); // three embedded servers started (initdb each) and nine CLI runs: 24 s at load 5, over 60 s in a fresh-clone CI at load ~12
});

describe("watch's live log says where a file was refused", () => {
  it("refused here vs rejected by the server", () => {
    const at = new Date();
    expect(formatLiveEvent({ type: "rejected", path: "team/big.txt", code: "entry_too_large", here: true }, at, false)).toContain(
      "refused here, never sent: team/big.txt (entry_too_large; see teammem status)",
    );
    expect(formatLiveEvent({ type: "rejected", path: "team/x.md", code: "invalid_request", here: false }, at, false)).toContain(
      "rejected by the server: team/x.md (invalid_request; see teammem status)",
    );
  });
});

describe("server messages are printed redacted", () => {
  it("a ServerError's message never carries a credential the server echoed", () => {
    const pat = fakeGithubPat();
    const err = new ServerError("http://127.0.0.1:1", 400, "invalid_request", `bad value ${pat}`, false);
    expect(err.message).not.toContain(pat);
    expect(err.serverMessage).not.toContain(pat);
    expect(err.message).toContain("[REDACTED:github-pat]");
  });

  it("echoed input in a refusal is redacted", async () => {
    const pat = fakeGithubPat();
    const r = await teammem(["status", `--${pat}`]);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toContain(pat);
  });
});

describe("doctor with a namespace holding a credential", () => {
  it("prints a FAIL line for the namespace and goes on with the other checks", async () => {
    const { a, envA } = await setup("pglite");
    const pat = fakeGithubPat();
    const configFile = join(a, ".teammem", "config.json");
    const config = JSON.parse(await readFile(configFile, "utf8"));
    await writeFile(configFile, JSON.stringify({ ...config, namespace: `acme-${pat}` }));
    const r = await teammem(["doctor", "--dir", a, "--json"], envA);
    expect(r.stdout + r.stderr).not.toContain(pat);
    expect(r.code).toBe(1);
    const checks = JSON.parse(r.stdout).checks as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === "namespace")).toMatchObject({ status: "fail", detail: expect.stringContaining("github-pat") });
    expect(checks.map((c) => c.check)).toContain("team folder");
  });
});
