/**
 * A pull stopped before its state was saved (try19 F5: a full disk) leaves the files it wrote at
 * their server versions: `status`, `sync --dry-run` and the sync agree that they are no local
 * change (the pull journal, `apps/client/src/state/pull-journal.ts`), and the dry run counts a file
 * already equal to the server's version as the sync does, never as a create to send.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { teammem, tempDir } from "../support/cli.js";
import { setup, status, sync, syncJson, tree } from "../support/clients.js";

const run = promisify(execFile);

/** Mounts a tmpfs of `size` on `dir` (needs root); false when mounting is not permitted here. */
async function mountTmpfs(dir: string, size: string): Promise<boolean> {
  try {
    await run("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
    return true;
  } catch {
    return false;
  }
}

const dryRun = async (dir: string, env: Record<string, string>) => JSON.parse((await teammem(["sync", "--dir", dir, "--dry-run", "--json"], env)).stdout);

describe("a pull stopped by a full disk (try19 F5)", () => {
  it("status, the dry run and the sync agree the files it wrote are at their server versions (a real ENOSPC on a tmpfs)", async (t) => {
    const { a, envA, server } = await setup("postgres");
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const full = join(root.path, "full");
    await mkdir(full);
    if (!(await mountTmpfs(full, "160k"))) {
      t.skip("mount -t tmpfs is not permitted here (needs root): the full-disk case was not run");
      return;
    }
    onTestFinished(async () => void (await run("umount", [full]).catch(() => undefined)));
    const files = 120;
    await mkdir(join(a, "team", "many"));
    for (let i = 0; i < files; i++) await writeFile(join(a, "team", "many", `n${i}.md`), `note ${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);

    const m = join(full, "m");
    const env = { TEAMMEM_TOKEN: await server.token("bob") };
    expect(await teammem(["init", "--dir", m, "--server", server.url, "--namespace", "acme-web"], env)).toMatchObject({ code: 0 });
    const stopped = await sync(m, env);
    expect(stopped.code, stopped.stdout).toBe(1);
    expect(stopped.stderr).toContain("the disk is full (ENOSPC");
    const written = (await tree(m)).length;
    expect(written).toBeGreaterThan(0); // the case: some files written, their state not saved
    expect(written).toBeLessThan(files);

    await run("mount", ["-o", "remount,size=8m", full]);
    const st = await status(m);
    expect(st.modified).toEqual([]);
    const plan = await dryRun(m, env);
    expect(plan.send).toEqual([]);
    expect(plan.pull.filter((p: { action: string }) => p.action === "write")).toHaveLength(files - written);
    const done = await syncJson(m, env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json.pushed.applied).toEqual([]);
    expect((await tree(m)).length).toBe(files);
    expect((await status(m)).modified).toEqual([]);
  });

  it("the dry run does not forecast a create for a file already equal to the server's version (the sync's pull gives it that base)", async () => {
    const { a, b, envA, envB } = await setup("postgres");
    expect((await sync(b, envB)).code).toBe(0); // synced once: its next sync pulls rather than reconciles
    await writeFile(join(a, "team", "same.md"), "same\n");
    await writeFile(join(a, "team", "other.md"), "other\n");
    expect((await sync(a, envA)).code).toBe(0);
    // Made here too, equal, before B ever pulled it: no base here.
    await writeFile(join(b, "team", "same.md"), "same\n");

    const plan = await dryRun(b, envB);
    expect(plan.pull).toEqual([
      { path: "team/other.md", version: 1, author: "alice", action: "write" },
      { path: "team/same.md", version: 1, author: "alice", action: "unchanged" },
    ]);
    expect(plan.send).toEqual([]);
    const done = await syncJson(b, envB);
    expect(done.json.pushed.applied).toEqual([]);
  });
});
