/** The built `teammem` binary (apps/client/dist/cli.js, made by `tsc -b`) as a child process against a real server in this process. */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { CLIENT_CLI as CLI } from "../../scripts/lib/processes.mjs";
import { tempDir } from "../support/cli.js";
import { dumpAllRows, startTestServer } from "../support/server.js";

const exec = promisify(execFile);

/** Runs the binary; resolves with its exit code and output whatever the code. */
async function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = { ...process.env, TEAMMEM_TOKEN: "" };
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { env: { ...clean, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("the built teammem binary", () => {
  it("inits, syncs and reports a held-back file as a separate process", async () => {
    expect(existsSync(CLI), `${CLI} is missing: run \`npx tsc -b\` first`).toBe(true);
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const [a, b] = [join(root.path, "a"), join(root.path, "b")];
    const env = { TEAMMEM_TOKEN: await server.token("carol") };
    for (const dir of [a, b]) {
      const r = await spawnCli(["init", "--dir", dir, "--server", server.url, "--namespace", "spawned"], env);
      expect(r.code, r.stderr).toBe(0);
    }
    const secret = fakeGithubPat();
    await mkdir(join(a, "private"));
    await writeFile(join(a, "private", "diary.md"), "private-diary-marker\n");
    await writeFile(join(a, "team", "readme.md"), "shared\n");
    await writeFile(join(a, "team", "env.md"), `token: ${secret}\n`);

    const syncA = await spawnCli(["sync", "--dir", a], env);
    expect(syncA.code, syncA.stderr).toBe(0);
    expect(syncA.stderr).toContain("held back team/env.md:1 github-pat");
    expect(syncA.stdout + syncA.stderr).not.toContain(secret);
    expect((await spawnCli(["sync", "--dir", b], env)).code).toBe(0);
    expect(await readFile(join(b, "team", "readme.md"), "utf8")).toBe("shared\n");
    expect(existsSync(join(b, "team", "env.md"))).toBe(false);

    const status = await spawnCli(["status", "--dir", a, "--json"], {});
    expect(JSON.parse(status.stdout).heldBack).toEqual([expect.objectContaining({ path: "team/env.md" })]);
    const dump = await dumpAllRows(server.database);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain("private-diary-marker");

    const usage = await spawnCli(["init", "--dir", join(root.path, "c"), "--namespace", "x"], {});
    expect(usage.code).toBe(2);
  });
});
