/** Bad command-line input: exit 2 with a message naming what is wrong; nothing is created. */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { run } from "./program.js";

/** Runs `teammem ...argv` in-process with `env` only (no TEAMMEM_TOKEN from the test process). */
async function teammem(argv: string[], env: Record<string, string> = {}) {
  const out = { code: 0, stdout: "", stderr: "" };
  out.code = await run(argv, env, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) }, tmpdir());
  return out;
}

/** A fresh temporary folder, removed when the test ends. */
async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), "teammem-usage-"));
  onTestFinished(() => rm(path, { recursive: true, force: true }));
  return path;
}

describe("teammem usage errors", () => {
  it("exits 2 naming --server when init has no --server", async () => {
    const dir = await folder();
    const r = await teammem(["init", "--dir", dir, "--namespace", "acme"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("required option '--server <url>' not specified");
    expect(existsSync(join(dir, ".teammem"))).toBe(false);
  });

  it.each([
    ["not a url", "--server must be an http(s) URL"],
    ["ftp://example.com", "--server must use http or https"],
    ["http://user:pw@example.com", "must not contain a user name or password"],
  ])("exits 2 on the bad server URL %s", async (url, message) => {
    const dir = await folder();
    const r = await teammem(["init", "--dir", dir, "--server", url, "--namespace", "acme"]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain(message);
    expect(existsSync(join(dir, ".teammem"))).toBe(false);
  });

  it("exits 2 naming the port when --server has a port out of range", async () => {
    const dir = await folder();
    const r = await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:99999", "--namespace", "acme"]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain("--server port 99999 is out of range (1-65535)");
    expect(existsSync(join(dir, ".teammem"))).toBe(false);
  });

  it.each(["1", "9", "6000"])("exits 2 naming port %s as one fetch never connects to, creating nothing", async (port) => {
    const dir = await folder();
    for (const extra of [[], ["--offline"]]) {
      const r = await teammem(["init", "--dir", dir, "--server", `http://127.0.0.1:${port}`, "--namespace", "acme", ...extra]);
      expect(r).toMatchObject({ code: 2, stdout: "" });
      expect(r.stderr).toContain(`--server port ${port} is one fetch never connects to (a WHATWG "bad port"`);
      expect(existsSync(join(dir, ".teammem"))).toBe(false);
    }
  });

  it("exits 2 when --dir is a regular file (or lies under one)", async () => {
    const dir = await folder();
    const file = join(dir, "afile");
    await writeFile(file, "not a folder\n");
    const r = await teammem(["init", "--dir", file, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme"]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`--dir ${file} is a file, not a folder`);
    const under = await teammem(["init", "--dir", join(file, "sub"), "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme"]);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain("a parent of it is a file, not a folder");
  });

  it.each([
    ["sync"],
    ["status", "--offline"],
    ["check"],
    ["push", "team/a.md"],
    ["doctor"],
    ["watch"],
    ["history", "team/a.md"],
    ["resolve", "team/a.md"],
  ])("exits 2, not an unexpected error, when --dir of %s is a regular file (or lies under one)", async (command, ...rest) => {
    const dir = await folder();
    const file = join(dir, "afile");
    await writeFile(file, "not a folder\n");
    const r = await teammem([command, ...rest, "--dir", file], { TEAMMEM_TOKEN: "tm_test" });
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toBe(`teammem: --dir ${file} is a file, not a folder; give the memory folder [usage_error]\n`);
    const under = await teammem([command, ...rest, "--dir", join(file, "sub")], { TEAMMEM_TOKEN: "tm_test" });
    expect(under).toMatchObject({ code: 2, stdout: "" });
    expect(under.stderr).toContain(`--dir ${join(file, "sub")}: a parent of it is a file, not a folder`);
    expect(await readFile(file, "utf8")).toBe("not a folder\n");
  });

  it("status prints local file names with control characters escaped, never raw (no terminal escape, no broken line)", async () => {
    const dir = join(await folder(), "mem");
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme"])).code).toBe(0);
    await mkdir(join(dir, "team"), { recursive: true });
    await writeFile(join(dir, "team", "\x1b[2K\rpushed: 9 applied.md"), "x\n");
    await writeFile(join(dir, "team", "nl\nname\u202e.md"), "x\n");
    await writeFile(join(dir, "team", "c1\u009b.md"), "x\n");
    const r = await teammem(["status", "--dir", dir, "--offline"]);
    expect(r.stdout).toContain("team/\\x1b[2K\\rpushed: 9 applied.md");
    expect(r.stdout).toContain("team/nl\\nname\\u202e.md");
    expect(r.stdout).toContain("team/c1\\x9b.md");
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(r.stdout.split("\n").filter((l) => l.includes("team/nl"))).toHaveLength(1);
  });

  it.each(["../x", "-dash", "a//b", "/acme/web", "acme/web/", "acme/..", "", "x".repeat(129), "acme\nweb"])(
    "exits 2 on the bad namespace %j, creating nothing",
    async (ns) => {
      const dir = await folder();
      const r = await teammem(["init", "--dir", join(dir, "mem"), "--server", "http://127.0.0.1:4", "--offline", "--namespace", ns]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--namespace");
      expect(existsSync(join(dir, "mem"))).toBe(false);
    },
  );

  it.each(["acme/web", "group/subgroup/repo"])("sets a folder up for the namespace %s", async (ns) => {
    const dir = await folder();
    const r = await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", ns]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain(`namespace ${ns} at http://127.0.0.1:4`);
  });

  it("exits 2 when sync finds no token anywhere, saying how to give one", async () => {
    const dir = await folder();
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme"])).code).toBe(0);
    const r = await teammem(["sync", "--dir", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no access token: pass --token, set TEAMMEM_TOKEN, or store one with `teammem init --token`");
  });

  it("exits 2 when sync or status run in a folder never set up", async () => {
    const dir = await folder();
    for (const command of ["sync", "status"]) {
      const r = await teammem([command, "--dir", dir], { TEAMMEM_TOKEN: "t" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("is not set up for teammem: run `teammem init");
    }
  });

  it("exits 2 when init would point a set-up folder at another namespace", async () => {
    const dir = await folder();
    await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme"]);
    const r = await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "other"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already set up for namespace acme");
  });

  it("exits 2 naming the choices when resolve gets an unknown --take, before touching the folder", async () => {
    const dir = await folder();
    const r = await teammem(["resolve", "team/a.md", "--take", "ours", "--dir", dir]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`--take must be one of file, mine, theirs (got "ours")`);
    expect(existsSync(join(dir, ".teammem"))).toBe(false);
  });

  it("exits 2 on an unknown command or option", async () => {
    expect((await teammem(["frobnicate"])).code).toBe(2);
    expect((await teammem(["sync", "--bogus"])).code).toBe(2);
  });

  it.each([
    [["sync", "--jsn"], "unknown option '--jsn' (Did you mean --json?)"],
    [["history"], "missing required argument 'path'"],
    [["restore", "team/a.md"], "required option '--version <version>' not specified"],
    [["resolve", "team/a.md", "--take", "both"], `option '--take <side>' argument 'both' is invalid. --take must be one of file, mine, theirs (got "both")`],
    [["frobnicate"], "unknown command 'frobnicate'"],
  ])("refuses the command line %j like every other refusal: one line ending in [usage_error], and JSON on stdout under --json", async (argv, message) => {
    const plain = await teammem(argv);
    expect(plain).toEqual({ code: 2, stdout: "", stderr: `teammem: ${message} [usage_error]\n` });
    const json = await teammem([...argv, "--json"]);
    expect(json.code).toBe(2);
    if (argv[0] === "sync") return; // `--jsn` with --json is another command line
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, error: { code: "usage_error", message } });
  });

  it("ends a sync's failure line with the error's stable code (server unreachable: network_error)", async () => {
    const dir = await folder();
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme", "--token", "some-token"])).code).toBe(0);
    const r = await teammem(["sync", "--dir", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/teammem: cannot reach server http:\/\/127\.0\.0\.1:4: [^\n]* \[network_error\]\n$/);
    const dry = await teammem(["sync", "--dry-run", "--dir", dir]);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(/\(the pull part is unknown\) \[network_error\]\n$/);
  });

  it("prints its package version for --version and -V", async () => {
    const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(await teammem(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    expect((await teammem(["-V"])).stdout).toBe(`${version}\n`);
  });

  it("exits 0 for --help", async () => {
    const r = await teammem(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Commands:");
  });

  it("stores a token given to init only in a 0600 config inside the 0700 state folder, and never prints it", async () => {
    const dir = await folder();
    await mkdir(join(dir, "existing"));
    const r = await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme", "--token", "sekrit-token-value"]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain("sekrit-token-value");
    expect((await stat(join(dir, ".teammem", "config.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, ".teammem"))).mode & 0o777).toBe(0o700);
    expect(existsSync(join(dir, "team"))).toBe(true);
  });
});
