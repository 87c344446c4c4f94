import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
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
    expect(await readTeamFile(layout, "escape/x.md")).toEqual({ kind: "unsafe", reason: "a parent folder is a symlink (not followed)", symlink: true });
  });

  it("neither reads nor replaces a file that is a symlink", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "private", "secret.md"), "private\n");
    await symlink(join(root, "private", "secret.md"), join(root, "team", "s.md"));
    expect(await readTeamFile(layout, "s.md")).toEqual({ kind: "unsafe", reason: "symlink (not followed)", symlink: true });
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

  it("reads UTF-16 LE and BE files with a byte order mark as text (so they are scanned and synced, issue 10)", async () => {
    const { root, layout } = await memoryFolder();
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("# Notes\r\nclé\r\n", "utf16le")]);
    await writeFile(join(root, "team", "le.md"), le);
    await writeFile(join(root, "team", "be.md"), Buffer.from(le).swap16());
    expect(await readTeamFile(layout, "le.md")).toMatchObject({ kind: "file", content: "# Notes\r\nclé\r\n" });
    expect(await readTeamFile(layout, "be.md")).toMatchObject({ kind: "file", content: "# Notes\r\nclé\r\n" });
    await writeFile(join(root, "team", "odd.md"), Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x00]));
    expect(await readTeamFile(layout, "odd.md")).toEqual({ kind: "unsafe", reason: "not UTF-8 text", symlink: false });
    // UTF-32 LE (mark FF FE 00 00): not decoded as UTF-16 into NULs and halves that would be scanned clean and synced.
    const u32 = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), ...[..."ghp_"].map((c) => Buffer.from([c.charCodeAt(0), 0, 0, 0]))]);
    await writeFile(join(root, "team", "u32.md"), u32);
    expect(await readTeamFile(layout, "u32.md")).toEqual({ kind: "unsafe", reason: "not UTF-8 text", symlink: false });
  });

  it("skips a UTF-8 file holding a NUL byte as binary, which the server would refuse (it was sent and rejected as invalid_request)", async () => {
    const { root, layout } = await memoryFolder();
    await writeFile(join(root, "team", "nul.md"), "a\u0000b\n");
    expect(await readTeamFile(layout, "nul.md")).toEqual({ kind: "unsafe", reason: "not text (holds a NUL byte)", symlink: false });
  });

  it("skips a regular file with another hard link (it may share content with a private file, try-out F5); read again once it has one name", async () => {
    const { layout } = await memoryFolder();
    await writeFile(join(layout.root, "private.md"), "PRIVATE hard-linked note\n");
    await link(join(layout.root, "private.md"), join(layout.team, "hard.md"));
    expect(await readTeamFile(layout, "hard.md")).toEqual({ kind: "unsafe", reason: "hard link (not synced: it may share content with a private file)", symlink: false });
    await rm(join(layout.root, "private.md"));
    expect(await readTeamFile(layout, "hard.md")).toMatchObject({ kind: "file", content: "PRIVATE hard-linked note\n" });
  });
});
