/**
 * try14 F19: letter case. Paths are compared as the server stores them (case-sensitively). A path
 * the user names that is not on disk as spelt, when a case variant is, is refused with
 * `path_case_mismatch` (on macOS or Windows it would open the variant and send or restore it under
 * the wrong name). On a case-insensitive file system (found by probing team/) a pulled entry whose
 * name differs only by case from a file here is kept as not written, with the reason, instead of
 * overwriting that file. This machine's file system is case-sensitive: the probe's answer is
 * checked here, and the pull is run with both answers (syncFolder's `caseInsensitive`).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layoutOf, syncFolder } from "@teammem/client";
import { caseVariantOnDisk, probeCaseInsensitive } from "../../apps/client/src/local/path-case.js";
import { teammem, tempDir } from "../support/cli.js";
import { addClient, setup, sync, tree } from "../support/clients.js";

describe("letter case of team paths", () => {
  it("probes the folder's file system and finds the on-disk spelling of a path", async () => {
    const dir = await tempDir();
    try {
      expect(await probeCaseInsensitive(dir.path)).toBe(false); // Linux: ext4/tmpfs tell case apart
      expect(await probeCaseInsensitive(join(dir.path, "missing"))).toBe(false);
      expect(await tree(dir.path)).toEqual([]); // the probe's file is gone
      await mkdir(join(dir.path, "Docs"));
      await writeFile(join(dir.path, "Notes.md"), "n\n");
      await writeFile(join(dir.path, "Docs", "a.md"), "a\n");
      expect(await caseVariantOnDisk(dir.path, "notes.md")).toBe("Notes.md");
      expect(await caseVariantOnDisk(dir.path, "NOTES.MD")).toBe("Notes.md");
      expect(await caseVariantOnDisk(dir.path, "Notes.md")).toBeNull();
      expect(await caseVariantOnDisk(dir.path, "docs/a.md")).toBe("Docs/a.md");
      expect(await caseVariantOnDisk(dir.path, "docs/b.md")).toBeNull();
      expect(await caseVariantOnDisk(dir.path, "x.md")).toBeNull();
      await writeFile(join(dir.path, "notes.md"), "other\n");
      expect(await caseVariantOnDisk(dir.path, "notes.md")).toBeNull(); // both spellings here: the exact one is used
    } finally {
      await dir.remove();
    }
  });

  it("refuses a named path that exists only in another letter case: push, history, diff, restore, resolve", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "notes.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "notes.md"), "v2\n");
    const sent = server.requests.length;
    for (const argv of [["push", "team/NOTES.md"], ["history", "team/Notes.md"], ["diff", "team/NOTES.md"], ["restore", "team/Notes.md", "--version", "1"], ["resolve", "team/NOTES.md"]]) {
      const r = await teammem([...argv, "--dir", a], envA);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code: 2, stdout: "" });
      expect(r.stderr).toMatch(/^teammem: team\/N\S+ is not in team\/, but team\/notes\.md is: paths are case-sensitive .* \[path_case_mismatch\]\n$/);
    }
    expect(server.requests.length).toBe(sent); // nothing asked or sent
    expect(await readFile(join(a, "team", "notes.md"), "utf8")).toBe("v2\n");
  }, 300_000);

  it("a teammate's notes.md beside Notes.md here: not written on a case-insensitive file system, written on a case-sensitive one", async () => {
    const clients = await setup("pglite");
    const { a, b, envA, envB } = clients;
    const c = await addClient(clients, "carol");
    await writeFile(join(b, "team", "notes.md"), "bob's notes\n");
    expect((await sync(b, envB)).code).toBe(0);
    for (const dir of [a, c.dir]) await writeFile(join(dir, "team", "Notes.md"), "my notes\n"); // not synced yet

    // Case-insensitive (macOS, Windows): writing notes.md would overwrite Notes.md.
    const insensitive = await syncFolder(layoutOf(a), { token: envA.TEAMMEM_TOKEN!, caseInsensitive: true, pull: true });
    expect(insensitive.pulled.notWritten).toEqual(["team/notes.md"]);
    expect(await tree(a)).toEqual(["team/Notes.md"]);
    expect(await readFile(join(a, "team", "Notes.md"), "utf8")).toBe("my notes\n");
    const status = JSON.parse((await teammem(["status", "--dir", a, "--json"], envA)).stdout);
    expect(status.notWritten).toEqual([
      expect.objectContaining({ path: "team/notes.md", reason: expect.stringContaining("team/Notes.md is here and its name differs only by letter case") }),
    ]);
    // Notes.md itself is refused by the server (path_case_conflict) and stays here: nothing is lost.
    expect(status.rejected).toEqual([expect.objectContaining({ path: "team/Notes.md", code: "path_case_conflict" })]);

    // Case-sensitive (this machine, Linux): both are written side by side.
    const sensitive = await syncFolder(layoutOf(c.dir), { token: c.env.TEAMMEM_TOKEN!, caseInsensitive: false });
    expect(sensitive.pulled.notWritten).toEqual([]);
    expect(await tree(c.dir)).toEqual(["team/Notes.md", "team/notes.md"]);
    expect(await readFile(join(c.dir, "team", "notes.md"), "utf8")).toBe("bob's notes\n");
    expect(await readFile(join(c.dir, "team", "Notes.md"), "utf8")).toBe("my notes\n");
  }, 300_000);
});
