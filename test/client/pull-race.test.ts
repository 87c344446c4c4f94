/**
 * A local edit written while a pull replaces the file is never lost (try16 F20: `teammem watch`
 * pulled a teammate's change and replaced a file the agent had just appended to).
 * The deterministic cases order the race with the client's seam (`syncFolder`'s `beforeReplace`,
 * run right before the replace re-checks the file): the test appends there, as an agent would
 * between the pull's decision and its rename. The last case runs the try-out's pattern with a
 * real watch and checks that every appended line exists afterwards.
 */
import { appendFile, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, syncFolder, Watch, type LiveEvent } from "@teammem/client";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";
import { versionsOf } from "../support/server.js";
import { poller } from "../support/until.js";

const until = poller({ timeoutMs: 20_000, everyMs: 50 });

/** A seam that appends `line` to B's `team/<path>` the first `times` times a replace of `path` is about to be checked. */
function appendDuringReplace(b: string, path: string, line: string, times = 1) {
  const seen: string[] = [];
  const beforeReplace = async (entryPath: string) => {
    seen.push(entryPath);
    if (entryPath === path && seen.filter((p) => p === path).length <= times) await appendFile(join(b, "team", path), line);
  };
  return { beforeReplace, seen };
}

/** Syncs `b` (bob) with "B r1" appended to team/race.md right before the sync's re-check of it; the sync must end without error. */
async function syncAppendingDuringReplace(server: Awaited<ReturnType<typeof setup>>["server"], b: string): Promise<void> {
  const seam = appendDuringReplace(b, "race.md", "B r1\n");
  const summary = await syncFolder(layoutOf(b), { token: await server.token("bob"), beforeReplace: seam.beforeReplace });
  expect(summary.error).toBeUndefined();
  expect(seam.seen).toContain("race.md");
}

describe.each(DATABASE_KINDS)("a pull that replaces a file edited meanwhile, on %s", (kind) => {
  it("a teammate's change of a file at its base: the append written before the rename is merged, not overwritten", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "race.md"), "one\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(join(a, "team", "race.md"), "ONE\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);

    await syncAppendingDuringReplace(server, b);
    // Without the re-check the pull renames "ONE\ntwo\nthree\n" over the append: "B r1" is gone.
    expect(await readFile(join(b, "team", "race.md"), "utf8")).toBe("ONE\ntwo\nthree\nB r1\n");
    expect((await sync(b, envB)).code).toBe(0);
    expect((await versionsOf(server.database, "race.md")).at(-1)?.content).toBe("ONE\ntwo\nthree\nB r1\n");
  });

  it("a file edited here too: an append written while the merge is written is kept and sent", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "race.md"), "one\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(join(a, "team", "race.md"), "ONE\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(b, "team", "race.md"), "one\ntwo\nthree\nB r0\n");

    await syncAppendingDuringReplace(server, b);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "race.md"), "utf8")).toBe("ONE\ntwo\nthree\nB r0\nB r1\n");
    expect((await versionsOf(server.database, "race.md")).at(-1)?.content).toBe("ONE\ntwo\nthree\nB r0\nB r1\n");
  });

  it("a teammate's delete: an append written before the unlink keeps the file and is sent", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "race.md"), "one\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await rm(join(a, "team", "race.md"));
    expect((await sync(a, envA)).code).toBe(0);
    expect((await versionsOf(server.database, "race.md")).at(-1)?.kind).toBe("delete");

    await syncAppendingDuringReplace(server, b);
    expect(await readFile(join(b, "team", "race.md"), "utf8")).toBe("one\nB r1\n");
    expect((await sync(b, envB)).code).toBe(0);
    expect((await versionsOf(server.database, "race.md")).at(-1)?.content).toBe("one\nB r1\n");
  });
});

describe("teammem watch while the agent appends (try16 F20's pattern)", () => {
  it("keeps every line appended while the watch pulls a teammate's appends: in the file, on the server, or in a conflict copy", async () => {
    const { server, a, b, envA, envB } = await setup("postgres");
    await writeFile(join(a, "team", "race.md"), "# race\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    const events: LiveEvent[] = [];
    const w = new Watch(layoutOf(b), { token: await server.token("bob"), log: (e) => events.push(e), backoff: { baseMs: 100, capMs: 1000 } });
    await w.start();
    onTestFinished(() => w.stop().then(() => undefined));
    await until("the live stream", () => events.some((e) => e.type === "connected"));

    const mine: string[] = [];
    const rounds = 5;
    for (let i = 1; i <= rounds; i++) {
      await appendFile(join(a, "team", "race.md"), `A r${i}\n`);
      const pushed = teammem(["push", "--dir", a, "team/race.md"], envA);
      // B appends while A's change travels and B's watch pulls it.
      for (const delayMs of [0, 50, 100, 200]) {
        await new Promise((r) => setTimeout(r, delayMs));
        const line = `B r${i} d${delayMs}`;
        mine.push(line);
        await appendFile(join(b, "team", "race.md"), `${line}\n`);
      }
      expect((await pushed).code).toBe(0);
      await until(`B to pull A r${i}`, async () => (await readFile(join(b, "team", "race.md"), "utf8")).includes(`A r${i}`));
    }
    expect((await w.stop()).exitCode).toBe(0);
    await sync(b, envB);
    await sync(a, envA);

    const file = await readFile(join(b, "team", "race.md"), "utf8");
    const versions = (await versionsOf(server.database, "race.md")).map((v) => v.content ?? "").join("\n");
    const conflictsDir = join(b, ".teammem", "conflicts");
    const copies = existsSync(conflictsDir) ? await Promise.all((await readdir(conflictsDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), "utf8"))) : [];
    const lost = mine.filter((line) => !file.includes(line) && !versions.includes(line) && !copies.some((c) => c.includes(line)));
    expect(lost).toEqual([]);
    // A copy or markers are always announced: no line is only in a copy without a logged conflict.
    const onlyInCopies = mine.filter((line) => !file.includes(line) && !versions.includes(line));
    if (onlyInCopies.length > 0) expect(events.some((e) => e.type === "sync-event" && e.event.type === "conflict")).toBe(true);
  });
});
