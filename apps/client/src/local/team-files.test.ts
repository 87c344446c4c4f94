import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf } from "../state/layout.js";
import { UnsafeLocalPath, readTeamFile, removeTeamFile, writeTeamFile } from "./team-files.js";

async function memoryFolder() {
  const root = await mkdtemp(join(tmpdir(), "teammem-files-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, "team"));
  await mkdir(join(root, "private"));
  return { root, layout: layoutOf(root) };
}

describe("team files", () => {
  it("writes a pulled file into new folders and deletes it with the folders it leaves empty", async () => {
    const { root, layout } = await memoryFolder();
    await writeTeamFile(layout, "a/b/c.md", "hello\n");
    expect(await readFile(join(root, "team", "a", "b", "c.md"), "utf8")).toBe("hello\n");
    await removeTeamFile(layout, "a/b/c.md");
    expect(existsSync(join(root, "team", "a"))).toBe(false);
    expect(existsSync(join(root, "team"))).toBe(true);
  });

  it("refuses to write through a symlinked folder into private space", async () => {
    const { root, layout } = await memoryFolder();
    await symlink(join(root, "private"), join(root, "team", "escape"));
    await expect(writeTeamFile(layout, "escape/x.md", "pwned")).rejects.toBeInstanceOf(UnsafeLocalPath);
    expect(existsSync(join(root, "private", "x.md"))).toBe(false);
    expect(await readTeamFile(layout, "escape/x.md")).toEqual({ kind: "unsafe", reason: "a parent folder is a symlink (not followed)" });
  });

  it("neither reads nor replaces a file that is a symlink", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "private", "secret.md"), "private\n");
    await symlink(join(root, "private", "secret.md"), join(root, "team", "s.md"));
    expect(await readTeamFile(layout, "s.md")).toEqual({ kind: "unsafe", reason: "symlink (not followed)" });
    await expect(writeTeamFile(layout, "s.md", "overwritten")).rejects.toBeInstanceOf(UnsafeLocalPath);
    await expect(removeTeamFile(layout, "s.md")).rejects.toBeInstanceOf(UnsafeLocalPath);
    expect(await readFile(join(root, "private", "secret.md"), "utf8")).toBe("private\n");
  });

  it("reads a missing file as absent and keeps a byte-order mark in content", async () => {
    const { root, layout } = await memoryFolder();
    expect(await readTeamFile(layout, "nope/x.md")).toEqual({ kind: "absent" });
    await writeFile(join(root, "team", "bom.md"), "\uFEFFtext");
    expect(await readTeamFile(layout, "bom.md")).toMatchObject({ kind: "file", content: "\uFEFFtext" });
  });
});
