/**
 * try17 M3, M7: paths named to `push`, `diff` and `restore` that are not regular files, do not
 * exist, or lie under a symlinked folder. A FIFO is never opened blocking (the command would hang);
 * each such path exits 2 with a stable code and sends nothing; a push talks only of the paths named.
 */
import { execFileSync } from "node:child_process";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

/** `r` exited 2 with `code` on its one stderr line, which says `text`, and printed nothing on stdout. */
function refused(r: { code: number; stdout: string; stderr: string }, code: string, text: string) {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
  expect(r.stderr).toMatch(/^teammem: [^\n]*\n$/);
  expect(r.stderr).toContain(text);
  expect(r.stderr).toContain(`[${code}]`);
}

describe("paths named that are not regular files, absent, or under a symlinked folder", () => {
  it("push: no_such_file, symlink_path, not_regular_file, sending nothing; a deleted synced file still sends its delete", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "kept.md"), "kept\n");
    await writeFile(join(a, "team", "gone.md"), "gone\n");
    expect((await sync(a, envA)).code).toBe(0);
    await mkdir(join(a, "notes"));
    const marker = "private-note-" + "m7";
    await writeFile(join(a, "notes", "n.md"), `${marker}\n`);
    await symlink(join(a, "notes"), join(a, "team", "linkdir"));
    execFileSync("mkfifo", [join(a, "team", "fifo.md")]);
    await writeFile(join(a, "team", "new.md"), "new\n");

    refused(await teammem(["push", "team/nonexist.md", "--dir", a], envA), "no_such_file", "team/nonexist.md: no such file");
    refused(await teammem(["push", "--dir", a, "team/new.md", "team/nope/x.md"], envA), "no_such_file", "team/nope/x.md: no such file");
    refused(await teammem(["push", "--dir", a, "team/kept.md/x.md"], envA), "no_such_file", "no such file");
    const link = await teammem(["push", "--dir", a, "team/linkdir/n.md"], envA);
    refused(link, "symlink_path", "team/linkdir/n.md: not synced: a parent folder is a symlink (not followed); a symlink in team/ is never followed");
    refused(await teammem(["push", "--dir", a, "team/fifo.md"], envA), "not_regular_file", "team/fifo.md: not a regular file");
    const json = await teammem(["push", "--dir", a, "team/linkdir/n.md", "--json"], envA);
    expect([json.code, JSON.parse(json.stdout).error.code]).toEqual([2, "symlink_path"]);
    expect((await status(a)).pending).toEqual([]);
    expect(await dumpAllRows(server.database)).not.toContain(marker);
    expect(await dumpAllRows(server.database)).not.toContain("new\n");

    // Unchanged keeps its message; a deleted synced file is not "no such file": its delete is sent.
    const same = await teammem(["push", "--dir", a, "team/kept.md"], envA);
    expect([same.code, same.stdout]).toEqual([0, "nothing to push for team/kept.md (unchanged since the last sync, or already sent)\n"]);
    await rm(join(a, "team", "gone.md"));
    const del = await teammem(["push", "--dir", a, "team/gone.md"], envA);
    expect([del.code, del.stdout]).toEqual([0, "pushed team/gone.md: applied\n"]);
  }, 120_000);

  it("push PATH talks only of PATH: another file held back when the outbox is sent is not mentioned (status still lists it)", async () => {
    const { server, a, envA } = await setup("pglite");
    await server.stop();
    await writeFile(join(a, "team", "deploy.md"), "# Deploy\n");
    expect((await teammem(["push", "--dir", a, "team/deploy.md"], envA)).code).toBe(1); // queued
    await writeFile(join(a, "team", "deploy.md"), `# Deploy\ntoken ${fakeGithubPat()}\n`); // re-scanned when sent: held back
    await server.start();
    await writeFile(join(a, "team", "notes.md"), "notes\n");
    const push = await teammem(["push", "--dir", a, "team/notes.md"], envA);
    expect([push.code, push.stdout, push.stderr]).toEqual([0, "pushed team/notes.md: applied\n", ""]);
    const json = await teammem(["push", "--dir", a, "team/notes.md", "--json"], envA);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, heldBack: [], warnings: [] });
    // The held-back file is there all the same: status lists it, and push of it names it.
    expect((await status(a)).heldBack.map((h: { path: string }) => h.path)).toEqual(["team/deploy.md"]);
    const named = await teammem(["push", "--dir", a, "team/deploy.md"], envA);
    expect(named.stdout).toContain("team/deploy.md: held back (secret found, not sent)");
  }, 120_000);

  it("diff and restore of a FIFO where the team file was: exit 2 not_regular_file, never opened", async () => {
    const { a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "x.md"), "one\n");
    expect((await sync(a, envA)).code).toBe(0);
    await rm(join(a, "team", "x.md"));
    execFileSync("mkfifo", [join(a, "team", "x.md")]);
    refused(await teammem(["diff", "team/x.md", "--dir", a], envA), "not_regular_file", "team/x.md: not a regular file");
    refused(await teammem(["restore", "team/x.md", "--version", "1", "--dir", a], envA), "not_regular_file", "team/x.md: not a regular file");
  }, 120_000);
});
