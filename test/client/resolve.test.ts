/** `teammem resolve`: closes the server's open conflict records of a file and clears it from status. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, type Clients } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { versionsOf } from "../support/server.js";

/**
 * A and B both edit `file` on the same line, A's push landing between B's pull and B's push: B's
 * push becomes a server conflict record, and B's file holds both sides between conflict markers.
 */
async function conflictOn({ server, a, b, envA, envB }: Clients, file: string): Promise<void> {
  await writeFile(join(a, "team", file), "value: base\n");
  await sync(a, envA);
  await sync(b, envB);
  await writeFile(join(b, "team", file), "value: from B\n");
  const raced = await engineSync(b, await server.token("bob"), {
    wrap: (api) => ({
      ...api,
      batch: async (request) => {
        await writeFile(join(a, "team", file), "value: from A\n");
        expect((await sync(a, envA)).code).toBe(0);
        return api.batch(request);
      },
    }),
  });
  expect(raced.pushed.conflicts).toEqual([`team/${file}`]);
  expect(await readFile(join(b, "team", file), "utf8")).toContain("<<<<<<< yours (local)\nvalue: from B\n");
}

const openConflicts = async (clients: Clients, path: string) =>
  (await rowsOf(clients.server.database, sql`SELECT id FROM conflicts WHERE path = ${path} AND status = 'open'`)).length;

describe.each(DATABASE_KINDS)("teammem resolve on %s", (kind) => {
  it("resolves with the file as it is now by default: server head, other client, status and the local copy", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await conflictOn(clients, "style.md");
    const [conflict] = (await status(b)).conflicts;
    expect(existsSync(join(b, conflict.copy))).toBe(true);
    expect(await openConflicts(clients, "style.md")).toBe(1);
    expect((await teammem(["resolve", "team/style.md", "--dir", b], envB)).stderr).toContain("team/style.md still has conflict markers (line 1)");
    expect(await openConflicts(clients, "style.md")).toBe(1);

    await writeFile(join(b, "team", "style.md"), "value: agreed by A and B\n");
    const r = await teammem(["resolve", "team/style.md", "--dir", b], envB);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("resolved 1 conflict on team/style.md with the file as it is: server version 3");
    expect(await openConflicts(clients, "style.md")).toBe(0);
    expect((await status(b)).conflicts).toEqual([]);
    expect((await status(b)).modified).toEqual([]);
    expect(existsSync(join(b, conflict.copy))).toBe(false);
    expect((await versionsOf(clients.server.database, "style.md")).at(-1)).toEqual({ version: 3, kind: "resolve", content: "value: agreed by A and B\n" });
    expect((await sync(b, envB)).code).toBe(0);
    expect((await status(b)).conflicts).toEqual([]);
    await sync(a, envA);
    expect(await readFile(join(a, "team", "style.md"), "utf8")).toBe("value: agreed by A and B\n");

    const none = await teammem(["resolve", "team/style.md", "--dir", b], envB);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no open conflict for team/style.md");
  });

  it("takes my saved side with --take mine and the server's with --take theirs", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await conflictOn(clients, "mine.md");
    await conflictOn(clients, "theirs.md");

    expect((await teammem(["resolve", "team/mine.md", "--take", "mine", "--dir", b], envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "mine.md"), "utf8")).toBe("value: from B\n");
    expect((await teammem(["resolve", "team/theirs.md", "--take", "theirs", "--dir", b], envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "theirs.md"), "utf8")).toBe("value: from A\n");
    expect(await openConflicts(clients, "mine.md")).toBe(0);
    expect(await openConflicts(clients, "theirs.md")).toBe(0);
    const st = await status(b);
    expect(st).toMatchObject({ conflicts: [], modified: [], pending: [] });
    await sync(a, envA);
    expect(await readFile(join(a, "team", "mine.md"), "utf8")).toBe("value: from B\n");

    const bad = await teammem(["resolve", "team/mine.md", "--take", "ours", "--dir", b], envB);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--take must be one of file, mine, theirs");
  });
  it("writes --take mine over a teammate's newer version pushed after the conflict (no sync/resolve loop); --take file asks for the sync that merges it", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await conflictOn(clients, "q.md");
    await conflictOn(clients, "f.md");
    // A (the teammate) writes both files again after the conflict: v3, newer than B's base v2.
    await writeFile(join(a, "team", "q.md"), "value: from A, again\n");
    await writeFile(join(a, "team", "f.md"), "value: from A\nadded by A\n");
    expect((await sync(a, envA)).code).toBe(0);

    const mine = await teammem(["resolve", "team/q.md", "--take", "mine", "--dir", b], envB);
    expect(mine).toMatchObject({ code: 0, stderr: "" });
    expect(mine.stdout).toContain("resolved 1 conflict on team/q.md with mine: server version 4 (written over a teammate's newer v3");
    expect(await readFile(join(b, "team", "q.md"), "utf8")).toBe("value: from B\n");
    expect(await openConflicts(clients, "q.md")).toBe(0);
    expect((await versionsOf(clients.server.database, "q.md")).slice(-2)).toEqual([
      { version: 3, kind: "write", content: "value: from A, again\n" },
      { version: 4, kind: "resolve", content: "value: from B\n" },
    ]);
    // The next sync neither pulls v3 back over mine nor keeps it as "newer on the server".
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "q.md"), "utf8")).toBe("value: from B\n");
    expect(await status(b)).toMatchObject({ modified: [], pending: [] });
    expect((await status(b)).newerOnServer ?? []).not.toContainEqual(expect.objectContaining({ path: "team/q.md" }));
    await sync(a, envA);
    expect(await readFile(join(a, "team", "q.md"), "utf8")).toBe("value: from B\n");

    // --take file with the markers removed by hand: the advice (sync merges v3 in, then resolve) is true.
    await writeFile(join(b, "team", "f.md"), "value: agreed\n");
    const file = await teammem(["resolve", "team/f.md", "--dir", b], envB);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain("run teammem sync (it merges that version into the file)");
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "f.md"), "utf8")).toBe("value: agreed\nadded by A\n");
    expect(await openConflicts(clients, "f.md")).toBe(0); // the sync's push of the merge settled the record
  });
});

describe("teammem resolve of a FIFO (try17 M3: never opened blocking)", () => {
  it("exits 2 not_regular_file when the conflict copy (--take mine) or the team file (--take file) is a FIFO", async () => {
    const clients = await setup("pglite");
    const { b, envB } = clients;
    await conflictOn(clients, "x.md");
    const [conflict] = (await status(b)).conflicts;
    await rm(join(b, conflict.copy));
    execFileSync("mkfifo", [join(b, conflict.copy)]);
    const mine = await teammem(["resolve", "team/x.md", "--take", "mine", "--dir", b], envB);
    expect([mine.code, mine.stdout]).toEqual([2, ""]);
    expect(mine.stderr).toContain(`${conflict.copy}: not a regular file (the conflict copy)`);
    expect(mine.stderr).toContain("[not_regular_file]");
    await rm(join(b, "team", "x.md"));
    execFileSync("mkfifo", [join(b, "team", "x.md")]);
    const file = await teammem(["resolve", "team/x.md", "--dir", b], envB);
    expect([file.code, file.stdout]).toEqual([2, ""]);
    expect(file.stderr).toContain("team/x.md: not a regular file");
    expect(file.stderr).toContain("[not_regular_file]");
    expect(await openConflicts(clients, "x.md")).toBe(1);
  });
});
