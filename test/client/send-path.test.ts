/**
 * Issue 8, "What leaves the machine is what is on disk now, scanned at the one door": queued
 * operations re-read their file at send time; content, paths, opIds, the namespace and the client
 * id are scanned immediately before the request, also for operations queued earlier (under
 * another rule set); batches are split by bytes under the server's body limit and over-size files
 * are refused here with the server's message.
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { entryTooLargeMessage } from "@teammem/protocol";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, syncJson } from "../support/clients.js";
import { dumpAllRows, versionsOf } from "../support/server.js";

/** Writes an operation straight into `dir`'s outbox, as an older client (or a tampered file) left it. */
async function plantQueued(dir: string, seq: number, entry: { operation: Record<string, unknown>; sha256: string | null; ruleSet?: string }): Promise<void> {
  const outbox = join(dir, ".teammem", "outbox");
  await mkdir(outbox, { recursive: true });
  const name = `${String(seq).padStart(16, "0")}-${String(entry.operation["opId"])}.json`;
  await writeFile(join(outbox, name), JSON.stringify({ ...entry, queuedAt: new Date().toISOString() }));
}

const sha = async (text: string) => (await import("@teammem/protocol")).sha256Hex(text);

describe.each(DATABASE_KINDS)("the send path on %s", (kind) => {
  it("sends what is on disk at send time: a file deleted before reconnecting never reaches the server, a changed one goes as it is now", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "shared.md"), "shared v1\n");
    await writeFile(join(a, "team", "gone-later.md"), "will be deleted offline\n");
    expect((await sync(a, envA)).code).toBe(0);

    await server.stop();
    const privateNote = "PRIVATE-NOTE-" + Date.now().toString(36);
    await writeFile(join(a, "team", "oops.md"), `${privateNote}: my salary and my doctor's name\n`);
    await writeFile(join(a, "team", "shared.md"), "shared v2 DRAFT-ONLY\n");
    await writeFile(join(a, "team", "gone-later.md"), "edited offline, then deleted\n");
    const offline = await sync(a, envA);
    expect(offline.code).toBe(1);
    expect((await status(a)).pending.map((p: { path: string }) => p.path).sort()).toEqual(["team/gone-later.md", "team/oops.md", "team/shared.md"]);

    // Before reconnecting: the private note is deleted, the draft finished, the edited file deleted.
    await rm(join(a, "team", "oops.md"));
    await writeFile(join(a, "team", "shared.md"), "shared v2 final\n");
    await rm(join(a, "team", "gone-later.md"));
    await server.start();
    const online = await sync(a, envA);
    expect(online.code).toBe(0);
    expect(online.stderr).toContain("team/oops.md was deleted before it was sent: not sent");
    expect((await status(a)).pending).toEqual([]);

    const rows = await dumpAllRows(server.database);
    expect(rows).not.toContain(privateNote);
    expect(rows).not.toContain("DRAFT-ONLY");
    expect(rows).not.toContain("edited offline, then deleted");
    expect((await versionsOf(server.database, "shared.md")).map((v) => v.content)).toEqual(["shared v1\n", "shared v2 final\n"]);
    expect((await versionsOf(server.database, "gone-later.md")).map((v) => v.kind)).toEqual(["write", "delete"]);
    expect(await versionsOf(server.database, "oops.md")).toEqual([]);

    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "shared.md"), "utf8")).toBe("shared v2 final\n");
  });

  it("scans every field of an already-queued operation at send time: content under an older rule set, path and opId", async () => {
    const { server, a, envA } = await setup(kind);
    const pat = fakeGithubPat();
    // Queued by an older client whose rules did not know this token yet; the file still holds it.
    const leak = `deploy with ${pat}\n`;
    await writeFile(join(a, "team", "deploy.md"), leak);
    await plantQueued(a, 1, { operation: { opId: "op-old-rules-1", path: "deploy.md", baseVersion: 0, content: leak }, sha256: await sha(leak), ruleSet: "0000000000000000" });
    // A path holding a credential, queued as if scanned under today's rules.
    const named = `notes-${pat}.md`;
    await writeFile(join(a, "team", named), "clean\n");
    const current = (await import("@teammem/client")).RULE_SET;
    await plantQueued(a, 2, { operation: { opId: "op-path-1", path: named, baseVersion: 0, content: "clean\n" }, sha256: await sha("clean\n"), ruleSet: current });
    // An opId holding a credential (a tampered outbox): dropped, the file is queued again under a new id.
    await writeFile(join(a, "team", "plain.md"), "plain\n");
    await plantQueued(a, 3, { operation: { opId: pat, path: "plain.md", baseVersion: 0, content: "plain\n" }, sha256: await sha("plain\n"), ruleSet: current });

    const r = await sync(a, envA);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("held back team/deploy.md:1 github-pat");
    expect(r.stderr).toContain("held back team/notes-[REDACTED:github-pat].md: path holds github-pat");
    expect(r.stderr).toContain("a queued operation for team/plain.md has an id holding a credential: dropped, not sent");
    const s = await status(a);
    expect(s.pending).toEqual([]);
    expect(s.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/deploy.md", "team/notes-[REDACTED:github-pat].md"]);
    expect((await versionsOf(server.database, "plain.md")).map((v) => v.content)).toEqual(["plain\n"]);
    const rows = await dumpAllRows(server.database);
    expect(rows).not.toContain(pat);
    expect(rows).not.toContain("op-old-rules-1");
    expect(r.stdout + r.stderr + JSON.stringify(s)).not.toContain(pat);
  });

  it("a block report whose fields would carry a credential is not sent", async () => {
    const { server, a, envA } = await setup(kind);
    const pat = fakeGithubPat();
    await writeFile(join(a, "team", "leak.md"), `token ${pat}\n`);
    expect((await sync(a, envA)).code).toBe(0); // held back and reported
    const reportsBefore = (await dumpAllRows(server.database)).match(/client_blocked/g)?.length ?? 0;
    // A tampered held-back list: a finding's label now holds another credential, not reported yet.
    const other = fakeGithubPat(7);
    const file = join(a, ".teammem", "held-back.json");
    const held = JSON.parse(await readFile(file, "utf8"));
    held.entries[0].reported = false;
    held.entries[0].findings[0].label = `see ${other}`;
    await writeFile(file, JSON.stringify(held));
    await writeFile(join(a, "team", "other.md"), "other\n");
    // push keeps other files' held-back records as they are, and reports those not reported yet.
    const r = await teammem(["push", "--dir", a, "team/other.md"], envA);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("held-back team/leak.md is not reported to the server: the report would carry a credential");
    const rows = await dumpAllRows(server.database);
    expect(rows.match(/client_blocked/g)?.length ?? 0).toBe(reportsBefore);
    expect(rows).not.toContain(other);
    expect(rows).not.toContain(pat);
  });

  it("a file edited to hold a credential after it was queued is held back, not sent", async () => {
    const { server, a, envA } = await setup(kind);
    await server.stop();
    await writeFile(join(a, "team", "ops.md"), "clean at first\n");
    expect((await sync(a, envA)).code).toBe(1);
    const pat = fakeGithubPat();
    await writeFile(join(a, "team", "ops.md"), `then: ${pat}\n`);
    await server.start();
    const r = await sync(a, envA);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("held back team/ops.md:1 github-pat");
    expect(await dumpAllRows(server.database)).not.toContain(pat);
    expect(await versionsOf(server.database, "ops.md")).toEqual([]);
  });

  it("a namespace or client id holding a credential stops the sync before any request", async () => {
    const { server, a, envA } = await setup(kind);
    await writeFile(join(a, "team", "x.md"), "x\n");
    const pat = fakeGithubPat();
    const configFile = join(a, ".teammem", "config.json");
    const config = JSON.parse(await readFile(configFile, "utf8"));
    for (const [field, label] of [
      ["namespace", "namespace"],
      ["clientId", "client id"],
    ] as const) {
      await writeFile(configFile, JSON.stringify({ ...config, [field]: `acme-${pat}` }));
      const r = await sync(a, envA);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the ${label} in .teammem/config.json holds a credential (github-pat); nothing was sent`);
      expect(r.stdout + r.stderr).not.toContain(pat);
    }
    expect(await dumpAllRows(server.database)).not.toContain(pat);
    await writeFile(configFile, JSON.stringify(config));
    expect((await sync(a, envA)).code).toBe(0);
  });
});

describe.each(DATABASE_KINDS)("batches and limits on %s", (kind) => {
  it("two 5 MB files do not make every sync fail: refused here with the server's message, other edits go through", async () => {
    const { server, a, envA } = await setup(kind);
    const big = "x".repeat(5 * 1024 * 1024 - 1) + "\n";
    await writeFile(join(a, "team", "big-1.txt"), big);
    await writeFile(join(a, "team", "big-2.txt"), big);
    await writeFile(join(a, "team", "small.md"), "small\n");
    const r = await syncJson(a, envA);
    expect(r.code).toBe(0);
    expect(r.json.pushed.applied).toEqual(["team/small.md"]);
    const message = entryTooLargeMessage(5 * 1024 * 1024, 256 * 1024);
    expect(r.stderr).toContain(`not sent team/big-1.txt: entry_too_large: ${message}`);
    // Counted and carried in --json like a server's refusal: "0 rejected" with two files refused hid them.
    expect(r.json.pushed.rejected).toEqual(["team/big-1.txt", "team/big-2.txt"]);
    expect(r.json.warnings).toContain(`not sent team/big-2.txt: entry_too_large: ${message}`);
    const s = await status(a);
    expect(s.rejected).toEqual([
      { path: "team/big-1.txt", code: "entry_too_large", message, retry: false, local: true },
      { path: "team/big-2.txt", code: "entry_too_large", message, retry: false, local: true },
    ]);
    expect(s.pending).toEqual([]);
    const shown = await teammem(["status", "--dir", a]);
    expect(shown.stdout).toContain(`team/big-1.txt entry_too_large: ${message} (refused here, never sent)`);
    expect(shown.stdout).not.toContain("everything synced");
    // Not sent again while unchanged; a later edit goes through.
    await writeFile(join(a, "team", "small.md"), "small 2\n");
    const again = await syncJson(a, envA);
    expect([again.code, again.json.pushed.applied]).toEqual([0, ["team/small.md"]]);
    expect((await versionsOf(server.database, "big-1.txt")).length).toBe(0);
  });

  it("splits batches by bytes under the server's body limit: two files of 60% of it each go in a batch of their own", async () => {
    const { server, a, b, envA, envB } = await setup(kind, { maxEntryBytes: 768 * 1024, maxBodyBytes: 1024 * 1024 });
    const big1 = "a".repeat(600 * 1024) + "\n";
    const big2 = "b".repeat(600 * 1024) + "\n";
    await writeFile(join(a, "team", "big-1.txt"), big1);
    await writeFile(join(a, "team", "big-2.txt"), big2);
    await writeFile(join(a, "team", "small.md"), "small\n");
    const r = await syncJson(a, envA);
    expect(r.code).toBe(0);
    expect(r.json.pushed.applied.sort()).toEqual(["team/big-1.txt", "team/big-2.txt", "team/small.md"]);
    expect(r.json.pending).toBe(0);
    expect((await versionsOf(server.database, "big-2.txt")).length).toBe(1);
    expect((await sync(b, envB)).code).toBe(0);
    expect((await readdir(join(b, "team"))).sort()).toEqual(["big-1.txt", "big-2.txt", "small.md"]);
    expect(await readFile(join(b, "team", "big-2.txt"), "utf8")).toBe(big2);
  });
});
