/**
 * A FIFO, device or socket given to `--key-file` or `--config` (try13: `mkfifo key; teammem-scan
 * --key-file key f.md` waited forever for a writer) is refused at once, never read: exit 2, the path,
 * what it is, and the stable code `key_file_not_a_file` / `config_not_a_file`, as for a folder.
 * Run as the built command (a process with a time limit): the old code blocked the whole process.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const launcher = fileURLToPath(new URL("../../bin/teammem-scan.js", import.meta.url));
const hint = "name a readable key file with --key-file or $TEAMMEM_SCAN_KEY_FILE, or unset both to use the default key";
let dir: string;
let socketServer: Server;

/** `teammem-scan ...args` as a process in `dir`, given 20 s (a blocked read fails the test, not the run). */
function scanCli(args: string[]) {
  const r = spawnSync(process.execPath, [launcher, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 20_000,
    env: { PATH: process.env.PATH, HOME: dir },
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-special-"));
  writeFileSync(join(dir, "notes.md"), "nothing to see\n");
  expect(spawnSync("mkfifo", [join(dir, "fifo")]).status).toBe(0);
  socketServer = createServer();
  await new Promise<void>((done) => socketServer.listen(join(dir, "sock"), done));
});
afterAll(async () => {
  await new Promise((done) => socketServer.close(done));
  rmSync(dir, { recursive: true, force: true });
});

describe("teammem-scan --key-file / --config naming a file that is not a regular file", () => {
  it.each([
    ["a FIFO with no writer", "fifo", "a FIFO (named pipe)"],
    ["a device (/dev/zero)", "/dev/zero", "a device"],
    ["a socket", "sock", "a socket"],
  ])("refuses --key-file %s at once: exit 2, key_file_not_a_file", (_what, file, kind) => {
    const path = file.startsWith("/") ? file : join(dir, file);
    expect(scanCli(["--key-file", file, "notes.md"])).toEqual({
      code: 2,
      signal: null,
      stdout: "",
      stderr: `teammem-scan: fingerprint key ${path}: ${kind}, not a key file (only a regular file is read) (key_file_not_a_file); ${hint}\n`,
    });
  });

  it.each([
    ["a FIFO with no writer", "fifo", "a FIFO (named pipe)"],
    ["a device (/dev/zero)", "/dev/zero", "a device"],
    ["a socket", "sock", "a socket"],
  ])("refuses --config %s at once: exit 2, config_not_a_file", (_what, file, kind) => {
    const path = file.startsWith("/") ? file : join(dir, file);
    expect(scanCli(["--config", file, "notes.md"])).toEqual({
      code: 2,
      signal: null,
      stdout: "",
      stderr: `teammem-scan: ${path}: cannot read config: ${kind}, not a regular file (config_not_a_file)\n`,
    });
  });
});
