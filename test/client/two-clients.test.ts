/**
 * Issue 2's client path against a real server (buildApp on a real socket) on PostgreSQL and
 * PGlite: two clients in temporary folders, driven through the CLI's `run`.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { setup, status, sync, tree } from "../support/clients.js";
import { dumpAllRows, startTestServer, versionsOf } from "../support/server.js";

describe.each(DATABASE_KINDS)("two clients through a server on %s", (kind) => {
  it("syncs team/ only, holds back the file with a secret, and sends it once the secret is removed", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const marker = `private-marker-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const secret = fakeGithubPat();
    const conventions = "# Conventions\n\n- Use pnpm.\n- Run `make check` before pushing.\n";
    await mkdir(join(a, "team"), { recursive: true });
    await mkdir(join(a, "notes"), { recursive: true });
    await writeFile(join(a, "team", "conventions.md"), conventions);
    await writeFile(join(a, "notes", "private.md"), `# Mine\n${marker}\n`);
    await writeFile(join(a, "team", "leak.md"), `# Deploy\n\nexport GITHUB_TOKEN=${secret}\n`);

    const syncA = await sync(a, envA);
    expect(syncA.code).toBe(0);
    expect(syncA.stderr).toContain("team/leak.md:3 github-pat");
    expect(syncA.stdout + syncA.stderr).not.toContain(secret);
    expect((await sync(b, envB)).code).toBe(0);

    expect(await tree(b)).toEqual(["team/conventions.md"]);
    expect(await readFile(join(b, "team", "conventions.md"), "utf8")).toBe(conventions);
    const everything = await dumpAllRows(server.database);
    expect(everything).toContain("Use pnpm.");
    expect(everything).toContain("client_blocked"); // the block report reached the audit log
    expect(everything).not.toContain(marker);
    expect(everything).not.toContain(secret);

    const statusA = await status(a);
    expect(statusA.heldBack).toEqual([
      { path: "team/leak.md", findings: [{ ruleId: "github-pat", label: expect.any(String), line: 3, column: 21, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }] },
    ]);
    expect(JSON.stringify(statusA)).not.toContain(secret);
    const human = await teammem(["status", "--dir", a]);
    expect(human.stdout).toContain("team/leak.md:3 github-pat");
    // Held back again on the next sync, but reported to the audit log only once per content.
    expect((await sync(a, envA)).stderr).toContain("team/leak.md:3 github-pat");
    expect((await dumpAllRows(server.database)).match(/client_blocked/g)).toHaveLength(1);

    await writeFile(join(a, "team", "leak.md"), "# Deploy\n\nexport GITHUB_TOKEN=$(gh auth token)\n");
    const again = await sync(a, envA);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain("held back");
    expect((await status(a)).heldBack).toEqual([]);
    await sync(b, envB);
    expect(await readFile(join(b, "team", "leak.md"), "utf8")).toBe("# Deploy\n\nexport GITHUB_TOKEN=$(gh auth token)\n");
    expect(await dumpAllRows(server.database)).not.toContain(secret);
  });

  it("keeps changes in the outbox while the server is down and applies them exactly once when it is back, also after a lost result", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    // A folder that synced before: a crash in its first sync is recovered by reconciliation instead (reconcile.test.ts).
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "build.md"), "# Build\n\nnpm run build\n");
    await server.stop();
    const offline = await sync(a, envA);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(`cannot reach server ${server.url}`);
    expect(offline.stderr).toContain("1 change is queued");
    expect((await status(a)).pending).toEqual([expect.objectContaining({ path: "team/build.md", kind: "put", baseVersion: 0 })]);

    // What a crash right after sending would leave behind: the outbox file and the state before the result.
    const outboxDir = join(a, ".teammem", "outbox");
    const [queuedName] = await readdir(outboxDir);
    const queuedFile = await readFile(join(outboxDir, queuedName!), "utf8");
    const stateBefore = await readFile(join(a, ".teammem", "state.json"), "utf8");

    await server.start();
    expect((await sync(a, envA)).code).toBe(0);
    expect((await status(a)).pending).toEqual([]);
    expect(await versionsOf(server.database, "build.md")).toEqual([{ version: 1, kind: "write", content: "# Build\n\nnpm run build\n" }]);

    await writeFile(join(outboxDir, queuedName!), queuedFile);
    await writeFile(join(a, ".teammem", "state.json"), stateBefore);
    const replay = await teammem(["sync", "--dir", a, "--json"], envA);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).pushed.applied).toEqual(["team/build.md"]); // the stored result, replayed
    expect(await versionsOf(server.database, "build.md")).toHaveLength(1);
    const after = await status(a);
    expect(after.pending).toEqual([]);
    expect(after.modified).toEqual([]);
    expect(JSON.parse(await readFile(join(a, ".teammem", "state.json"), "utf8")).bases["build.md"]).toMatchObject({ version: 1 });

    await sync(b, envB);
    expect(await readFile(join(b, "team", "build.md"), "utf8")).toBe("# Build\n\nnpm run build\n");
  });

  it("merges edits of different lines made on both clients", async () => {
    const { a, b, envA, envB } = await setup(kind);
    const lines = ["# Notes", "one", "two", "three", "four", "five", ""];
    await writeFile(join(a, "team", "notes.md"), lines.join("\n"));
    await sync(a, envA);
    await sync(b, envB);
    await writeFile(join(a, "team", "notes.md"), lines.map((l) => (l === "one" ? "one (edited by A)" : l)).join("\n"));
    await writeFile(join(b, "team", "notes.md"), lines.map((l) => (l === "five" ? "five (edited by B)" : l)).join("\n"));
    expect((await sync(a, envA)).code).toBe(0);
    const syncB = await teammem(["sync", "--dir", b, "--json"], envB);
    expect(syncB.code).toBe(0);
    // B merged A's edit into its file at pull, then pushed the merge as a fast-forward.
    expect(JSON.parse(syncB.stdout)).toMatchObject({ pulled: { merged: ["team/notes.md"] }, pushed: { applied: ["team/notes.md"] } });
    await sync(a, envA);
    const merged = lines.map((l) => (l === "one" ? "one (edited by A)" : l === "five" ? "five (edited by B)" : l)).join("\n");
    expect(await readFile(join(a, "team", "notes.md"), "utf8")).toBe(merged);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe(merged);
    expect((await status(a)).modified).toEqual([]);
    expect((await status(b)).modified).toEqual([]);
  });

  it("writes overlapping edits into the file between conflict markers and keeps the local side whole as a copy", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "style.md"), "indent: 2 spaces\n");
    await sync(a, envA);
    await sync(b, envB);
    await writeFile(join(a, "team", "style.md"), "indent: tabs\n");
    await writeFile(join(b, "team", "style.md"), "indent: 4 spaces\n");
    await sync(a, envA);
    const syncB = await sync(b, envB);
    expect(syncB.code).toBe(0);
    expect(syncB.stdout).toContain("team/style.md: your edit and alice's edit (v2) changed the same lines");
    expect(await readFile(join(b, "team", "style.md"), "utf8")).toContain("<<<<<<< yours (local)\nindent: 4 spaces\n");
    const { conflicts } = await status(b);
    expect(conflicts).toEqual([expect.objectContaining({ path: "team/style.md", headVersion: 2, state: "markers" })]);
    expect(conflicts[0].copy).toMatch(/^\.teammem\/conflicts\//);
    expect(await readFile(join(b, conflicts[0].copy), "utf8")).toBe("indent: 4 spaces\n");
    expect(await dumpAllRows(server.database)).not.toContain("indent: 4 spaces"); // nothing sent while the markers are there
    // Removing the markers settles it: the file is sent and the copy goes.
    await writeFile(join(b, "team", "style.md"), "indent: 4 spaces\n");
    await sync(b, envB);
    expect((await status(b)).conflicts).toEqual([]);
    expect(existsSync(join(b, conflicts[0].copy))).toBe(false);
    expect(await dumpAllRows(server.database)).toContain("indent: 4 spaces");
  });

  it("never sends what a symlink in team/ points at, and lists the symlink as skipped", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const marker = `symlinked-private-${Date.now()}`;
    await mkdir(join(a, "notes"));
    await writeFile(join(a, "notes", "private.md"), `${marker}\n`);
    await symlink(join(a, "notes", "private.md"), join(a, "team", "link.md"));
    await symlink(join(a, "notes"), join(a, "team", "linked-folder"));
    // A FIFO in private space: opening it for reading would block, so a finished sync proves nobody did.
    execFileSync("mkfifo", [join(a, "notes", "pipe")]);
    await symlink(join(a, "notes", "pipe"), join(a, "team", "pipe-link"));
    await writeFile(join(a, "team", "ok.md"), "fine\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await status(a)).skipped).toEqual([
      { path: "team/link.md", reason: "symlink (not followed)", symlink: true },
      { path: "team/linked-folder", reason: "symlink (not followed)", symlink: true },
      { path: "team/pipe-link", reason: "symlink (not followed)", symlink: true },
    ]);
    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/ok.md"]);
    expect(await dumpAllRows(server.database)).not.toContain(marker);
  });

  it("propagates a delete to the other client", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "sub"));
    await writeFile(join(a, "team", "sub", "old.md"), "outdated\n");
    await sync(a, envA);
    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/sub/old.md"]);
    await rm(join(a, "team", "sub", "old.md"));
    expect((await sync(a, envA)).code).toBe(0);
    await sync(b, envB);
    expect(await tree(b)).toEqual([]);
    expect(existsSync(join(b, "team", "sub"))).toBe(false);
    expect((await versionsOf(server.database, "sub/old.md")).map((v) => v.kind)).toEqual(["write", "delete"]);
  });

  it("shows a rejected file in status, does not resend it unchanged, and sends it once it changes", async () => {
    const { server, a, envA } = await setup(kind, { maxEntryBytes: 64 });
    await writeFile(join(a, "team", "big.md"), "x".repeat(100) + "\n");
    const first = await sync(a, envA);
    expect(first.code).toBe(0);
    // Refused here, with the limit read from GET /v1/server and the server's message.
    expect(first.stderr).toContain("not sent team/big.md: entry_too_large: content is 101 UTF-8 bytes, the limit is 64");
    expect((await status(a)).rejected).toEqual([expect.objectContaining({ path: "team/big.md", code: "entry_too_large", retry: false, local: true })]);
    const ops = async () => (await dumpAllRows(server.database)).split("\n").filter((l) => l.includes("entry_too_large")).length;
    const before = await ops();
    await sync(a, envA);
    expect(await ops()).toBe(before); // not resent
    await writeFile(join(a, "team", "big.md"), "small\n");
    await sync(a, envA);
    expect((await status(a)).rejected).toEqual([]);
    expect(await versionsOf(server.database, "big.md")).toEqual([{ version: 1, kind: "write", content: "small\n" }]);
  });

  it("splits the outbox into batches the server accepts", async () => {
    const { server, a, b, envA, envB } = await setup(kind, { maxOperationsPerBatch: 2 });
    for (let i = 0; i < 5; i++) await writeFile(join(a, "team", `f${i}.md`), `file ${i}\n`);
    const syncA = await teammem(["sync", "--dir", a, "--json"], envA);
    expect(syncA.code).toBe(0);
    expect(JSON.parse(syncA.stdout).pushed.applied).toHaveLength(5);
    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/f0.md", "team/f1.md", "team/f2.md", "team/f3.md", "team/f4.md"]);
    expect(await dumpAllRows(server.database)).toContain("file 4");
  });

  it("creates the namespace at the first sync when init ran without a token", async () => {
    const server = await startTestServer(kind);
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const dir = join(root.path, "c");
    const init = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "fresh-ns"]);
    expect(init).toMatchObject({ code: 0, stderr: "" });
    expect(init.stdout).toContain("namespace will be created on the first sync");
    await writeFile(join(dir, "team", "hello.md"), "hi\n");
    const first = await teammem(["sync", "--dir", dir, "--json"], { TEAMMEM_TOKEN: await server.token("erin") });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ ok: true, pushed: { applied: ["team/hello.md"] }, pending: 0 });
  });

  it("takes the token from --token over TEAMMEM_TOKEN over the stored one", async () => {
    const { a, b, envA } = await setup(kind);
    // B stored a valid token: a bad env token must win over it, and a good flag over a bad env.
    const badEnv = await sync(b, { TEAMMEM_TOKEN: "not-a-token" });
    expect(badEnv.code).toBe(1);
    expect(badEnv.stderr).toMatch(/server http:\/\/127\.0\.0\.1:\d+ answered 401 unauthorized/);
    expect(badEnv.stderr).not.toContain("not-a-token");
    expect(badEnv.stdout).toBe(""); // only the error: no summary of work that never happened
    const badJson = await teammem(["sync", "--dir", b, "--json"], { TEAMMEM_TOKEN: "not-a-token" });
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stdout)).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(JSON.parse(badJson.stdout).pulled).toBeUndefined();
    expect((await teammem(["sync", "--dir", a, "--token", envA.TEAMMEM_TOKEN!], { TEAMMEM_TOKEN: "not-a-token" })).code).toBe(0);
    expect((await sync(b, {})).code).toBe(0);
  });
});
