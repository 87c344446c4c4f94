/** `teammem scan`: the pre-write guard an agent calls before writing into the team scope (issue 13). */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat, randomChars } from "@teammem/scanner/testing";
import { run } from "../program.js";

async function teammem(argv: string[], stdin?: string | Buffer, env: Record<string, string> = {}, cwd = tmpdir()) {
  const out = { code: 0, stdout: "", stderr: "" };
  const io = {
    stdout: (t: string) => void (out.stdout += t),
    stderr: (t: string) => void (out.stderr += t),
    ...(stdin === undefined ? {} : { readStdin: async (max: number) => Buffer.from(stdin).subarray(0, max + 1) }),
  };
  out.code = await run(argv, env, io, cwd);
  return out;
}

async function memoryFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "teammem-scan-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, "team"));
  return dir;
}

const awsKeyId = () => "AKIA" + randomChars(16, 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");

describe("teammem scan --stdin --path", () => {
  it("exits 0 for clean content headed for the team scope", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/build.md"], "# Build\n\nrun make check\n");
    expect(r).toEqual({ code: 0, stdout: "team/build.md: no credentials found\n", stderr: "" });
  });

  it("exits 1 with file:line:rule for a credential, never printing the value", async () => {
    const dir = await memoryFolder();
    const secret = fakeGithubPat();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/deploy.md"], `# Deploy\nexport GITHUB_TOKEN=${secret}\n`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("team/deploy.md:2:github-pat (GitHub personal access token (classic))\n");
    expect(r.stderr).toContain("team/deploy.md holds 1 credential(s): it must not be written to the team scope");
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it("takes an absolute path inside the memory folder, as agents name files", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", join(dir, "team", "sub", "x.md")], `t=${fakeGithubPat()}\n`);
    expect([r.code, r.stdout]).toEqual([1, "team/sub/x.md:1:github-pat (GitHub personal access token (classic))\n"]);
  });

  it("refuses a credential in the file's path, showing the path redacted", async () => {
    const dir = await memoryFolder();
    const key = awsKeyId();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", `team/${key}/notes.md`], "clean\n");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("team/[REDACTED:aws-access-token]/notes.md: path holds aws-access-token");
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it("lets a private file through unchecked: it never leaves the machine", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "notes/private.md"], `t=${fakeGithubPat()}\n`);
    expect([r.code, r.stdout]).toEqual([0, "notes/private.md: private (outside team/), never leaves this machine; not checked\n"]);
  });

  it("does not honour a teammem:allow marker, as a sync does not (only an approved bypass lets a credential through)", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md"], `t=${fakeGithubPat()} # teammem:allow\n`);
    expect([r.code, r.stdout]).toEqual([1, "team/x.md:1:github-pat (GitHub personal access token (classic))\n"]);
  });

  it("prints JSON with --json", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md", "--json"], `a\nb=${fakeGithubPat()}\n`);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      results: [{ path: "team/x.md", scope: "team", findings: [{ ruleId: "github-pat", label: "GitHub personal access token (classic)", line: 2, column: 3 }], pathFindings: [] }],
    });
  });

  it.each([
    [["--stdin"], "--stdin needs --path"],
    [["--path", "team/x.md"], "--path goes with --stdin"],
    [[], "nothing to scan"],
    [["--stdin", "--path", "team/x.md", "team/y.md"], "not both"],
    [["--stdin", "--path", "/etc/passwd"], "is outside the memory folder"],
    [["--stdin", "--path", "team/../../x.md"], "is outside the memory folder"],
    [["--stdin", "--path", "team/.git/config"], "is not a valid team path"],
    [["--stdin", "--path", "team/"], "names the team folder, not a file"],
    [["--stdin", "--path", ""], "--path must not be empty"],
    [[""], "an empty path was given"],
  ])("exits 2 on %j", async (args, message) => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, ...args], "x\n");
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
  });

  it("exits 2 for input over 8 MiB or not UTF-8, without scanning it", async () => {
    const dir = await memoryFolder();
    const big = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md"], Buffer.alloc(8 * 1024 * 1024 + 1, 0x61));
    expect([big.code, big.stderr]).toEqual([2, expect.stringContaining("is over 8 MiB")]);
    const binary = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md"], Buffer.from([0x61, 0xff, 0xfe]));
    expect([binary.code, binary.stderr]).toEqual([2, expect.stringContaining("is not UTF-8 text")]);
  });

  it("scans UTF-16 input with a byte order mark like a sync reads the file (issue 10)", async () => {
    const dir = await memoryFolder();
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`note\nt=${fakeGithubPat()}\n`, "utf16le")]);
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md"], utf16);
    expect([r.code, r.stdout]).toEqual([1, "team/x.md:2:github-pat (GitHub personal access token (classic))\n"]);
  });

  it("exits 2 when there is no standard input to read", async () => {
    const dir = await memoryFolder();
    const r = await teammem(["scan", "--dir", dir, "--stdin", "--path", "team/x.md"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("no standard input")]);
  });
});

describe("teammem scan PATH", () => {
  it("finds the memory folder from .teammem upwards: a team file named from inside team/ or absolutely from elsewhere is checked (issue 10, U1)", async () => {
    const parent = await memoryFolder(); // a plain folder holding the memory folder "mem"
    const mem = join(parent, "mem");
    await mkdir(join(mem, "team", "sub"), { recursive: true });
    await mkdir(join(mem, ".teammem"));
    await writeFile(join(mem, "team", "ci.md"), `x\nSLACK=${fakeGithubPat()}\n`);
    await writeFile(join(mem, "notes.md"), "private\n");
    const line = "team/ci.md:2:github-pat (GitHub personal access token (classic))\n";
    expect(await teammem(["scan", "ci.md"], undefined, {}, join(mem, "team"))).toMatchObject({ code: 1, stdout: line });
    expect(await teammem(["scan", "../ci.md"], undefined, {}, join(mem, "team", "sub"))).toMatchObject({ code: 1, stdout: line });
    expect(await teammem(["scan", join(mem, "team", "ci.md")], undefined, {}, parent)).toMatchObject({ code: 1, stdout: line });
    expect(await teammem(["scan", "team/ci.md"], undefined, {}, mem)).toMatchObject({ code: 1, stdout: line });
    expect(await teammem(["scan", "--dir", "mem", "team/ci.md"], undefined, {}, parent)).toMatchObject({ code: 1, stdout: line });
    expect(await teammem(["scan", "--stdin", "--path", "new.md"], `t=${fakeGithubPat()}\n`, {}, join(mem, "team"))).toMatchObject({ code: 1, stdout: expect.stringContaining("team/new.md:1:github-pat") });
    // A private file named from inside the folder is still private.
    expect(await teammem(["scan", "../notes.md"], undefined, {}, join(mem, "team"))).toMatchObject({ code: 0, stdout: expect.stringContaining("notes.md: private") });
  });

  it("scans team files on disk and reports each", async () => {
    const dir = await memoryFolder();
    await writeFile(join(dir, "team", "ok.md"), "fine\n");
    await writeFile(join(dir, "team", "bad.md"), `x\ny\nz=${fakeGithubPat()}\n`);
    const r = await teammem(["scan", "--dir", dir, "team/ok.md", join(dir, "team", "bad.md")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("team/ok.md: no credentials found\nteam/bad.md:3:github-pat (GitHub personal access token (classic))\n");
    const missing = await teammem(["scan", "--dir", dir, "team/nope.md"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("team/nope.md: no such file")]);
  });

  it("exits 2 no_such_file for a path that does not exist, team or private (try14 F11: it said 'private … not checked', exit 0)", async () => {
    const dir = await memoryFolder();
    for (const path of ["does/not/exist.md", "team/nope.md"]) {
      const r = await teammem(["scan", "--dir", dir, path]);
      expect([r.code, r.stdout]).toEqual([2, ""]);
      expect(r.stderr).toMatch(new RegExp(`^teammem: ${path}: no such file .*\\[no_such_file\\]\\n$`));
    }
  });

  it("scans every file a sync would read under a named folder, team/ itself too, as push takes the same paths (try17 L6)", async () => {
    const dir = await memoryFolder();
    await mkdir(join(dir, "team", "sub"));
    await writeFile(join(dir, "team", "ok.md"), "fine\n");
    await writeFile(join(dir, "team", "sub", "leak.md"), `t=${fakeGithubPat()}\n`);
    await writeFile(join(dir, "private.md"), `t=${fakeGithubPat()}\n`);
    for (const path of ["team/", "team", join(dir, "team")]) {
      const r = await teammem(["scan", "--dir", dir, path]);
      expect({ path, code: r.code, stdout: r.stdout }).toEqual({ path, code: 1, stdout: "team/ok.md: no credentials found\nteam/sub/leak.md:1:github-pat (GitHub personal access token (classic))\n" });
    }
    const sub = await teammem(["scan", "--dir", dir, "team/sub/", "--json"]);
    expect([sub.code, JSON.parse(sub.stdout).results.map((r: { path: string }) => r.path)]).toEqual([1, ["team/sub/leak.md"]]);
  });

  it("exits 2 not_regular_file for a FIFO or a socket named, never opening it (try17 M3: a FIFO hung the scan)", async () => {
    const dir = await memoryFolder();
    await writeFile(join(dir, "team", "ok.md"), "fine\n");
    execFileSync("mkfifo", [join(dir, "team", "fifo.md")]);
    execFileSync("mkfifo", [join(dir, "private-fifo")]);
    await mkdir(join(dir, "team", "sub"));
    const socket = createServer();
    await new Promise<void>((done) => socket.listen(join(dir, "team", "sock.md"), done));
    onTestFinished(() => new Promise<void>((done) => socket.close(() => done())));
    for (const [path, shown] of [
      ["team/fifo.md", "team/fifo.md"],
      [join(dir, "team", "fifo.md"), "team/fifo.md"],
      ["team/sock.md", "team/sock.md"],
      ["private-fifo", "private-fifo"],
    ]) {
      const r = await teammem(["scan", "--dir", dir, "team/ok.md", path!]);
      expect({ path, code: r.code, stdout: r.stdout }).toEqual({ path, code: 2, stdout: "" });
      expect(r.stderr).toMatch(new RegExp(`^teammem: ${shown}: not a regular file .*\\[not_regular_file\\]\\n$`));
      const json = await teammem(["scan", "--dir", dir, path!, "--json"]);
      expect([json.code, JSON.parse(json.stdout).error.code]).toEqual([2, "not_regular_file"]);
    }
    expect((await teammem(["scan", "--dir", dir, "team/ok.md"])).code).toBe(0);
  });

  it("reads a relative path from the current folder, as shell globbing gives it (try14 F11)", async () => {
    const parent = await memoryFolder();
    const mem = join(parent, "m-alice");
    await mkdir(join(mem, "team"), { recursive: true });
    await writeFile(join(mem, "team", "x.md"), `t=${fakeGithubPat()}\n`);
    const r = await teammem(["scan", "--dir", "m-alice", "m-alice/team/x.md"], undefined, {}, parent);
    expect([r.code, r.stdout]).toEqual([1, "team/x.md:1:github-pat (GitHub personal access token (classic))\n"]);
  });

  it("reports a file that is not UTF-8, scans the others, and exits 2: not everything was scanned (try14 F10)", async () => {
    const dir = await memoryFolder();
    await writeFile(join(dir, "team", "a-latin1.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await writeFile(join(dir, "team", "b-ok.md"), "fine\n");
    const clean = await teammem(["scan", "--dir", dir, "team/a-latin1.md", "team/b-ok.md"]);
    expect(clean).toEqual({
      code: 2,
      stdout: "team/b-ok.md: no credentials found\n",
      stderr: "teammem: not scanned: team/a-latin1.md is not UTF-8 text; team files must be UTF-8\nteammem: not everything was scanned (1 file(s) above)\n",
    });
    await writeFile(join(dir, "team", "c-bad.md"), `t=${fakeGithubPat()}\n`);
    const found = await teammem(["scan", "--dir", dir, "team/a-latin1.md", "team/b-ok.md", "team/c-bad.md"]);
    expect([found.code, found.stdout]).toEqual([1, "team/b-ok.md: no credentials found\nteam/c-bad.md:1:github-pat (GitHub personal access token (classic))\n"]);
    expect(found.stderr).toContain("not scanned: team/a-latin1.md is not UTF-8 text");
  });

  it("finds exactly what a sync holds back (one scan for both)", async () => {
    const dir = await memoryFolder();
    const content = `a\n${fakeGithubPat()}\nkey=${awsKeyId()}\n`;
    await writeFile(join(dir, "team", "mixed.md"), content);
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme/web"])).code).toBe(0);
    const scanned = JSON.parse((await teammem(["scan", "--dir", dir, "team/mixed.md", "--json"])).stdout).results[0].findings;
    await teammem(["sync", "--dir", dir, "--token", "tok"]); // server unreachable: changes are queued, held-back files recorded
    const status = JSON.parse((await teammem(["status", "--dir", dir, "--json"])).stdout);
    // status adds each finding's fingerprint (for sync --allow); scan --json never shows one
    const withoutFingerprints = status.heldBack[0].findings.map(({ fingerprint, ...f }: { fingerprint: string }) => (expect(fingerprint).toMatch(/^[0-9a-f]{32}$/), f));
    expect([{ ...status.heldBack[0], findings: withoutFingerprints }]).toEqual([{ path: "team/mixed.md", findings: scanned }]);
    expect(scanned.map((f: { ruleId: string }) => f.ruleId)).toEqual(["github-pat", "aws-access-token"]);
  });
});
