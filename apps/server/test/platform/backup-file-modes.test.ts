/**
 * A backup holds the token signing key: `teammem-server export > backup.jsonl` leaves the file
 * owner-only (0600) whatever the shell's umask made it, and `import` of a file others can read
 * warns (and still imports). The built CLI with its stdout a real file, as a shell runs it.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { seededDataDir } from "./cli-harness.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "teammem-backup-modes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { PATH: process.env["PATH"] ?? "" };
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("backup file modes", () => {
  it("export to a file makes it 0600 (it was 0644), says so, and import of a 0644 file warns naming the file and its mode", { timeout: 300_000 }, async () => {
    const source = await seededDataDir(); // migrated already: no initdb per command
    const backup = join(root, "backup.jsonl");
    const fd = openSync(backup, "w");
    chmodSync(backup, 0o644); // as a shell's `>` makes it under umask 022
    let r;
    try {
      expect(mode(backup)).toBe("644");
      r = spawnSync(process.execPath, [CLI, "export", "--data-dir", source], { env, stdio: ["ignore", fd, "pipe"], encoding: "utf8", timeout: 120_000 });
    } finally {
      closeSync(fd);
    }
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.stringContaining("(written owner-only, mode 0600)") });
    expect(mode(backup)).toBe("600");
    expect(JSON.parse(readFileSync(backup, "utf8").split("\n")[0]!)).toMatchObject({ format: "teammem-backup" });

    // To a pipe: nothing to change, nothing claimed.
    const piped = spawnSync(process.execPath, [CLI, "export", "--data-dir", source], { env, encoding: "utf8", timeout: 120_000 });
    expect({ status: piped.status, owner: piped.stderr.includes("mode 0600") }).toEqual({ status: 0, owner: false });

    const lax = join(root, "lax.jsonl");
    writeFileSync(lax, piped.stdout);
    chmodSync(lax, 0o644);
    expect(mode(lax)).toBe("644");
    const imported = spawnSync(process.execPath, [CLI, "import", lax, "--data-dir", join(root, "restored")], { env, encoding: "utf8", timeout: 120_000 });
    expect(imported.status).toBe(0);
    expect(imported.stderr.split("\n")[0]).toBe(
      `teammem-server: warning: ${lax} is readable or writable by other users (mode 0644) and holds the JWT signing key: chmod 600 it`,
    );
    // A file that is no backup (named by mistake): refused as such, and no claim that it holds the signing key.
    const notes = join(root, "notes.txt");
    writeFileSync(notes, "shopping list\n");
    chmodSync(notes, 0o644);
    const wrong = spawnSync(process.execPath, [CLI, "import", notes, "--data-dir", join(root, "restored-wrong")], { env, encoding: "utf8", timeout: 120_000 });
    expect({ status: wrong.status, stderr: wrong.stderr }).toEqual({ status: 1, stderr: expect.not.stringContaining("warning") });
    expect(wrong.stderr).toContain("(backup_not_a_backup)");
    // A folder: said so, before any database is opened.
    const folder = spawnSync(process.execPath, [CLI, "import", root, "--data-dir", join(root, "restored-folder")], { env, encoding: "utf8", timeout: 120_000 });
    expect({ status: folder.status, stderr: folder.stderr }).toEqual({ status: 1, stderr: `teammem-server: cannot read ${root}: it is a folder, not a backup file (EISDIR) (backup_unreadable)\n` });
    expect(existsSync(join(root, "restored-folder"))).toBe(false);
    // An owner-only file: no warning.
    const quiet = spawnSync(process.execPath, [CLI, "import", backup, "--data-dir", join(root, "restored-2")], { env, encoding: "utf8", timeout: 120_000 });
    expect({ status: quiet.status, warned: quiet.stderr.includes("warning") }).toEqual({ status: 0, warned: false });
  });
});
