/**
 * The commands as a user installs them outside the clone: `npm run pack` (scripts/pack.mjs) makes
 * the tarballs, `npm install -g --offline --prefix <temp>` installs them (every dependency is
 * bundled, so no registry is asked), and the installed `teammem` and `teammem-scan` run from a
 * folder outside the clone against a real server. Needs `tsc -b` first (`npm test` does it).
 */
import { execFile } from "node:child_process";
import { lstat, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { tempDir } from "../support/cli.js";
import { startTestServer } from "../support/server.js";

const exec = promisify(execFile);
const repo = fileURLToPath(new URL("../..", import.meta.url));
const version = (pkg: string) => readFile(join(repo, pkg, "package.json"), "utf8").then((t) => (JSON.parse(t) as { version: string }).version);

/** Runs `command` (an installed bin) with a PATH that holds the prefix's bin and node only. */
async function runInstalled(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const path = [join(cwd, "..", "prefix", "bin"), join(process.execPath, "..")].join(":");
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env: { PATH: path, HOME: cwd, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Every file and link under `dir` whose real path lies inside the clone. */
async function pointingIntoClone(dir: string): Promise<string[]> {
  const cloneRoot = (await realpath(repo)) + sep;
  const found: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if ((await realpath(p)).startsWith(cloneRoot)) found.push(relative(dir, p));
      else if (e.isDirectory() && !(await lstat(p)).isSymbolicLink()) await walk(p);
    }
  };
  await walk(dir);
  return found;
}

describe("teammem and teammem-scan installed from packed tarballs", () => {
  it("install without a registry into a fresh prefix and work from outside the clone", { timeout: 300_000 }, async () => {
    const root = await tempDir("teammem-install-");
    onTestFinished(() => root.remove());
    const [packed, prefix, home] = ["packed", "prefix", "home"].map((d) => join(root.path, d)) as [string, string, string];

    const pack = await exec(process.execPath, [join(repo, "scripts", "pack.mjs"), packed], { cwd: repo });
    const tarballs = pack.stdout.trim().split("\n");
    expect(tarballs.map((t) => relative(packed, t)).sort()).toEqual([
      `teammem-client-${await version("apps/client")}.tgz`,
      `teammem-scanner-${await version("packages/scanner")}.tgz`,
    ]);
    await exec("npm", ["install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, ...tarballs], { cwd: root.path });
    expect(await pointingIntoClone(prefix)).toEqual([]);
    await exec("mkdir", [home]);

    const v = await runInstalled("teammem", ["--version"], home);
    expect(v).toEqual({ code: 0, stdout: `${await version("apps/client")}\n`, stderr: "" });
    expect((await runInstalled("teammem-scan", ["--version"], home)).stdout).toBe(`${await version("packages/scanner")}\n`);

    const secret = fakeGithubPat();
    await writeFile(join(home, "notes.md"), `first line\ntoken ${secret}\n`);
    const scanned = await runInstalled("teammem-scan", ["notes.md"], home);
    expect(scanned.code).toBe(1);
    expect(scanned.stdout).toContain("notes.md:2:7 github-pat");
    expect(scanned.stdout).not.toContain(secret);

    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const env = { TEAMMEM_TOKEN: await server.token("installer") };
    const memory = join(home, "memory");
    const init = await runInstalled("teammem", ["init", "--dir", memory, "--server", server.url, "--namespace", "installed"], home, env);
    expect(init.code, init.stderr).toBe(0);
    await writeFile(join(memory, "team", "build.md"), "npm ci, then npm test\n");
    const sync = await runInstalled("teammem", ["sync", "--dir", memory], home, env);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain("pushed: 1 applied");
    const res = await fetch(`${server.url}/v1/namespaces/installed/changes?since=0`, { headers: { authorization: `Bearer ${env.TEAMMEM_TOKEN}` } });
    expect(((await res.json()) as { changes: unknown[] }).changes).toEqual([expect.objectContaining({ version: 1, content: "npm ci, then npm test\n" })]);
  });
});
