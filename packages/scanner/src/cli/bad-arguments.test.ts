/**
 * `teammem-scan` on bad command lines (issue 10): each kind of mistake is exit 2 with a message
 * that says what is wrong (and the usage when the command line itself is wrong), never a stack
 * trace and never a secret. The kinds covered elsewhere: an unknown option, a missing path or none,
 * `--format xml`, a FIFO, `--redact` with `--format json` (run.test.ts); binary and huge inputs
 * (exit 3, run.test.ts); key files (key-file.test.ts); config files (config-file.test.ts).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubToken } from "../fakes.js";
import { run } from "./run.js";

let dir: string;
const token = fakeGithubToken("ghp_", 511);

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), readStdin: () => Buffer.alloc(0) };
  const code = await run(args, { TEAMMEM_SCAN_KEY_FILE: join(dir, "key") }, io, dir);
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-args-"));
  writeFileSync(join(dir, "clean.md"), "nothing to see\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("teammem-scan bad command lines", () => {
  it.each([
    [["clean.md", "--format"], "Option '-f, --format <value>' argument missing"],
    [["clean.md", "-f"], "Option '-f, --format <value>' argument missing"],
    [["clean.md", "--config"], "Option '-c, --config <value>' argument missing"],
    [["clean.md", "--key-file"], "Option '--key-file <value>' argument missing"],
    [["--config", "--redact", "clean.md"], "Option '--config' argument is ambiguous"],
  ])("refuses an option without its value: %j → exit 2 and the usage", async (args, message) => {
    const r = await cli(args);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toMatch(new RegExp(`^teammem-scan: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^]*\nusage: teammem-scan `));
  });

  it.each([
    [["--format", "json", "--format", "text", "clean.md"], "--format"],
    [["-f", "json", "--format=sarif", "clean.md"], "--format"],
    [["--config", "a.json", "-c", "b.json", "clean.md"], "--config"],
    [["--key-file", "a", "--key-file", "b", "clean.md"], "--key-file"],
  ])("refuses an option that takes a value given twice (which one was meant?): %j", async (args, option) => {
    const r = await cli(args);
    expect(r).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(new RegExp(`^teammem-scan: ${option} given more than once: give it once\nusage: `)) });
  });

  it("refuses a value given to a flag that takes none", async () => {
    const r = await cli(["--redact=yes", "clean.md"]);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/^teammem-scan: Option '--redact' does not take an argument\nusage: /) });
    expect(await cli(["--no-config=1", "clean.md"])).toMatchObject({ code: 2, stderr: expect.stringContaining("'--no-config' does not take an argument") });
  });

  it("redacts a credential pasted as an option in the error (the parser quotes unknown options)", async () => {
    const r = await cli([`--${token}`, "clean.md"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--[REDACTED:github-pat]'");
    expect(r.stderr).not.toContain(token.slice(4));
  });

  it("refuses an input file and a config file it may not read (EACCES; run as user nobody when root, else 000 files)", (ctx) => {
    const open = mkdtempSync(join(tmpdir(), "teammem-scan-eacces-"));
    onTestFinished(() => rmSync(open, { recursive: true, force: true }));
    chmodSync(open, 0o755);
    writeFileSync(join(open, "key"), "0".repeat(64) + "\n", { mode: 0o644 });
    writeFileSync(join(open, "f.md"), "clean\n", { mode: 0o644 });
    writeFileSync(join(open, "locked.md"), "clean\n", { mode: 0o600 });
    writeFileSync(join(open, "locked.json"), "{}\n", { mode: 0o600 });
    const root = process.getuid?.() === 0;
    if (!root) for (const f of ["locked.md", "locked.json"]) chmodSync(join(open, f), 0o000);
    const launcher = fileURLToPath(new URL("../../bin/teammem-scan.js", import.meta.url));
    const asNobody = { uid: 65534, gid: 65534 };
    // As root the check runs as nobody, who needs a node it may execute (see run.test.ts).
    const node = root ? [process.execPath, "/usr/bin/node"].find((n) => spawnSync(n, ["-e", ""], asNobody).status === 0) : process.execPath;
    if (!node) return ctx.skip("no node binary the user nobody may execute");
    const scan = (args: string[]) => {
      const r = spawnSync(node, [launcher, ...args], { cwd: open, encoding: "utf8", env: { PATH: process.env["PATH"], TEAMMEM_SCAN_KEY_FILE: join(open, "key") }, ...(root && asNobody) });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    expect(scan(["f.md", "locked.md"])).toEqual({ status: 2, stdout: "", stderr: "teammem-scan: locked.md: cannot read (EACCES)\n" });
    expect(scan(["--config", "locked.json", "f.md"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `teammem-scan: ${join(open, "locked.json")}: cannot read config (EACCES) (config_unreadable)\n`,
    });
  });
});
