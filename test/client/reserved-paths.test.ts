/**
 * Reserved path segments (`.git`, `.teammem`, `.teammem-tmp-*`, refused by `checkEntryPath`): never
 * synced from team/, listed as skipped, never deleted on the server, and never written when a
 * server sends one.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { setup, status, sync, tree } from "../support/clients.js";
import { versionsOf } from "../support/server.js";

const RESERVED = "invalid path: path must not contain a '.git', '.teammem' or '.teammem-tmp-*' segment";

describe.each(DATABASE_KINDS)("reserved path segments on %s", (kind) => {
  it("lists local .git and .teammem files under team/ as skipped and sends nothing of them", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "repo", ".git"), { recursive: true });
    await writeFile(join(a, "team", "repo", ".git", "config"), "[core]\n\tfsmonitor = evil\n");
    await mkdir(join(a, "team", ".teammem"));
    await writeFile(join(a, "team", ".teammem", "state.json"), "{}\n");
    await writeFile(join(a, "team", "ok.md"), "ok\n");
    const first = await sync(a, envA);
    expect(first.code).toBe(0);
    expect((await status(a)).skipped).toEqual([
      { path: "team/.teammem", reason: RESERVED, symlink: false },
      { path: "team/repo/.git", reason: RESERVED, symlink: false },
    ]);
    expect(await rowsOf(server.database, sql`SELECT path FROM entries ORDER BY path`)).toEqual([{ path: "ok.md" }]);
    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/ok.md"]);
  });

  it("never deletes on the server an entry whose path became reserved, and never writes one a server sends", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "evil.md"), "[core]\n\tfsmonitor = evil\n");
    expect((await sync(a, envA)).code).toBe(0);
    // A server from before the rule (or a hostile one) holds and sends `.git/config`.
    for (const table of ["entries", "versions"])
      await rowsOf(server.database, sql`UPDATE ${sql.raw(table)} SET path = '.git/config' WHERE path = 'evil.md'`);
    const pulled = await sync(b, envB);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toContain("skipped a server change with an invalid path");
    expect(existsSync(join(b, "team", ".git"))).toBe(false);
    expect(await tree(b)).toEqual([]);

    // A client that synced the path before the rule has a base for it and no local file: no delete is sent.
    const stateFile = join(b, ".teammem", "state.json");
    const state = JSON.parse(await readFile(stateFile, "utf8"));
    state.bases[".git/config"] = { version: 1, sha256: sha256Hex("[core]\n\tfsmonitor = evil\n") };
    await writeFile(stateFile, JSON.stringify(state));
    const again = await sync(b, envB);
    expect(again.code).toBe(0);
    expect((await status(b)).pending).toEqual([]);
    expect((await status(b)).rejected).toEqual([]); // not even attempted (a server would refuse it as invalid_path)
    expect(await versionsOf(server.database, ".git/config")).toEqual([{ version: 1, kind: "write", content: "[core]\n\tfsmonitor = evil\n" }]);
  });
});
