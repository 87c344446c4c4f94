/**
 * try15 F7: a symlink in team/ misled `push` ("nothing to push") and `scan` followed it into a
 * private file, reporting that file's findings as a team file's. A symlink in team/ (to a private
 * file, to a file outside the memory folder, dangling; or a folder on the way) is never followed:
 * sync lists it as skipped; push and scan of it (or of a path under a symlinked folder) are refused,
 * exit 2 symlink_path (try17 C1, L7); scan of a folder names the links in it as not scanned (try17 L6);
 * watch warns once; nothing it points at reaches the server.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem, tempDir } from "../support/cli.js";
import { setup, syncJson } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

const SYMLINK_LINE = (path: string) =>
  `${path}: not synced: symlink (not followed); a symlink in team/ is never followed, read, scanned or sent: copy the file into team/ to share it`;

describe("symlinks in team/", () => {
  it("to a private file, outside the memory folder, dangling, through a folder: never read, named by sync, push and scan", async () => {
    const { server, a, envA } = await setup("pglite");
    const outside = await tempDir();
    const secret = fakeGithubPat();
    await writeFile(join(a, "private.md"), `GITHUB_TOKEN=${secret}\n`);
    await writeFile(join(outside.path, "elsewhere.md"), `token ${secret}\n`);
    await mkdir(join(a, "notes"));
    await writeFile(join(a, "notes", "deep.md"), `also ${secret}\n`);
    await symlink(join(a, "private.md"), join(a, "team", "private-link.md"));
    await symlink(join(outside.path, "elsewhere.md"), join(a, "team", "outside-link.md"));
    await symlink(join(a, "gone.md"), join(a, "team", "dangling.md"));
    await symlink(join(a, "notes"), join(a, "team", "folder-link"));
    await writeFile(join(a, "team", "real.md"), "shared\n");
    const links = ["team/dangling.md", "team/folder-link", "team/outside-link.md", "team/private-link.md"];

    const run = await syncJson(a, envA);
    expect(run.code).toBe(0);
    expect(run.json.pushed.applied).toEqual(["team/real.md"]);
    expect(run.json.skipped).toEqual(links.map((path) => ({ path, reason: "symlink (not followed)", symlink: true })));
    expect(await dumpAllRows(server.database)).not.toContain(secret);

    // A named symlink is refused as a path under a symlinked folder is: exit 2 symlink_path, nothing sent (try17 C1).
    const deep = `team/folder-link/deep.md: not synced: a parent folder is a symlink (not followed); a symlink in team/ is never followed, read, scanned or sent: copy the file into team/ to share it`;
    for (const [link, line] of [...["team/private-link.md", "team/outside-link.md", "team/dangling.md"].map((l) => [l, SYMLINK_LINE(l)]), ["team/folder-link/deep.md", deep]]) {
      const push = await teammem(["push", "--dir", a, link!], envA);
      expect({ link, code: push.code, stdout: push.stdout, stderr: push.stderr }).toEqual({ link, code: 2, stdout: "", stderr: `teammem: ${line}; nothing sent [symlink_path]\n` });
      const json = await teammem(["push", "--dir", a, link!, "--json"], envA);
      expect({ code: json.code, json: JSON.parse(json.stdout) }).toEqual({ code: 2, json: { ok: false, error: { code: "symlink_path", message: `${line}; nothing sent` } } });
    }

    // scan reads none of them: no finding of the private files; a named link is refused, exit 2 symlink_path (try17 L7), nothing scanned.
    const argv = ["scan", "--dir", a, "team/real.md", "team/private-link.md", "team/outside-link.md", "team/dangling.md", "team/folder-link/deep.md"];
    const scan = await teammem(argv, envA);
    expect({ code: scan.code, stdout: scan.stdout }).toEqual({ code: 2, stdout: "" });
    expect(scan.stderr).toBe(`teammem: ${[SYMLINK_LINE("team/private-link.md"), SYMLINK_LINE("team/outside-link.md"), SYMLINK_LINE("team/dangling.md"), deep].join("; ")}; not scanned [symlink_path]\n`);
    // Named by their folder, they are what a sync skips there: named as not scanned, the exit is the files' (try17 L6).
    const folder = await teammem(["scan", "--dir", a, "team/"], envA);
    expect({ code: folder.code, stdout: folder.stdout }).toEqual({ code: 0, stdout: "team/real.md: no credentials found\n" });
    expect(folder.stderr).toBe(
      [SYMLINK_LINE("team/dangling.md"), SYMLINK_LINE("team/folder-link"), SYMLINK_LINE("team/outside-link.md"), SYMLINK_LINE("team/private-link.md")].map((l) => `teammem: warning: ${l}; not scanned\n`).join(""),
    );
    const scanJson = JSON.parse((await teammem(["scan", "--dir", a, "team", "--json"], envA)).stdout);
    expect(scanJson).toMatchObject({ ok: true, results: [{ path: "team/real.md", findings: [] }] });
    expect(scanJson.skipped.map((s: { path: string }) => s.path)).toEqual(links);
    await outside.remove();
  }, 300_000);
});
