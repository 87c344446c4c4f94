/**
 * A team/ folder deleted, moved, unmounted or replaced by a symlink must not become "delete every
 * entry for the whole team": sync refuses (exit 1, nothing sent) unless --allow-mass-delete.
 */
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, tree } from "../support/clients.js";
import type { TestServer } from "../support/server.js";

const tombstones = async (server: TestServer) =>
  Number((await rowsOf<{ n: number }>(server.database, sql`SELECT count(*) AS n FROM versions WHERE kind = 'delete'`))[0]!.n);

async function writeFiles(dir: string, n: number): Promise<void> {
  await mkdir(join(dir, "team", "sub"), { recursive: true });
  for (let i = 0; i < n; i++) await writeFile(join(dir, "team", i % 2 ? "sub" : "", `f${i}.md`), `file ${i}\n`);
}

describe.each(DATABASE_KINDS)("mass-delete guard on %s", (kind) => {
  it("refuses to sync when team/ is missing or a symlink while entries are tracked, and deletes everything only with --allow-mass-delete", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFiles(a, 6);
    expect((await sync(a, envA)).code).toBe(0);
    await rename(join(a, "team"), join(a, "moved-away"));

    const missing = await sync(a, envA);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${join(a, "team")} is missing, but this folder tracks 6 team entries`);
    expect(missing.stderr).toContain("teammem sync --allow-mass-delete");
    expect(missing.stdout).toBe("");
    expect(await tombstones(server)).toBe(0);
    const shown = await teammem(["status", "--dir", a]);
    expect(shown.stdout).toContain("team/ is missing: sync refuses to run, it would delete all 6 tracked entries");
    expect(await status(a)).toMatchObject({ teamFolder: "missing", trackedEntries: 6, pending: [] });

    // A symlinked team/ (even to the very same files) is refused the same way.
    await symlink(join(a, "moved-away"), join(a, "team"));
    const linked = await sync(a, envA);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`${join(a, "team")} is a symlink (not followed), but this folder tracks 6 team entries`);
    expect(await tombstones(server)).toBe(0);

    // Restored: syncs normally again, nothing deleted.
    await rm(join(a, "team"));
    await rename(join(a, "moved-away"), join(a, "team"));
    expect((await sync(a, envA)).code).toBe(0);
    expect(await tombstones(server)).toBe(0);

    await rm(join(a, "team"), { recursive: true });
    const allowed = await teammem(["sync", "--dir", a, "--allow-mass-delete", "--json"], envA);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).pushed.applied).toHaveLength(6);
    expect(await tombstones(server)).toBe(6);
    await sync(b, envB);
    expect(await tree(b)).toEqual([]);
  });

  it("refuses a sync deleting more than 10 entries and more than half of them, allows smaller ones", async () => {
    const { server, a, envA } = await setup(kind);
    await writeFiles(a, 14);
    expect((await sync(a, envA)).code).toBe(0);
    for (let i = 0; i < 4; i++) await rm(join(a, "team", i % 2 ? "sub" : "", `f${i}.md`));
    expect((await sync(a, envA)).code).toBe(0); // 4 of 14: fine
    expect(await tombstones(server)).toBe(4);

    await writeFiles(a, 14); // 14 live again
    expect((await sync(a, envA)).code).toBe(0);
    for (let i = 0; i < 11; i++) await rm(join(a, "team", i % 2 ? "sub" : "", `f${i}.md`));
    const refused = await sync(a, envA);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("this sync would delete 11 of the 14 team entries (team/f0.md, team/f10.md, team/f2.md, ...)");
    expect(refused.stderr).toContain("--allow-mass-delete");
    expect(await tombstones(server)).toBe(4);
    expect((await status(a)).pending).toEqual([]);

    expect((await teammem(["sync", "--dir", a, "--allow-mass-delete"], envA)).code).toBe(0);
    expect(await tombstones(server)).toBe(15);
  });

  // try21 F5: status listed every refused delete as "changed locally, not queued yet (run teammem sync)", 3000 lines, and sync refused again.
  it("status after a refused mass delete names the deletes as refused and how to proceed, lists at most 50 of them (--json all), a rename apart", async () => {
    const { a, envA } = await setup(kind);
    await writeFiles(a, 62);
    expect((await sync(a, envA)).code).toBe(0);
    const deleted = Array.from({ length: 60 }, (_, i) => (i % 2 ? `team/sub/f${i}.md` : `team/f${i}.md`)).sort();
    for (const path of deleted) await rm(join(a, path));
    await writeFile(join(a, "team", "f60.md"), "file 60, edited\n");
    await rename(join(a, "team", "sub", "f61.md"), join(a, "team", "renamed.md")); // a rename, which the sync does not count as a delete
    expect((await sync(a, envA)).code).toBe(1);

    const shown = await teammem(["status", "--dir", a, "--offline"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split("\n").slice(2)).toEqual([
      "deleted here: 60 of the 62 tracked entries, which sync refuses as a mass delete (nothing is sent; restore the files, " +
        "or run `teammem sync --allow-mass-delete` if you really mean to delete them for the whole team):",
      ...deleted.slice(0, 50).map((p) => `  ${p}`),
      "  ... and 10 more (teammem status --json lists them all)",
      "changed locally, not queued yet (sent by the first sync not refused as a mass delete):",
      "  team/f60.md",
      "  team/renamed.md",
      "  team/sub/f61.md",
      "",
    ]);
    const json = await status(a);
    expect({ refusedDeletes: json.refusedDeletes, modified: json.modified.length }).toEqual({ refusedDeletes: deleted, modified: 63 });

    expect((await teammem(["sync", "--dir", a, "--allow-mass-delete"], envA)).code).toBe(0);
    expect(await status(a)).toMatchObject({ refusedDeletes: [], modified: [], pending: [] });
  });
});
