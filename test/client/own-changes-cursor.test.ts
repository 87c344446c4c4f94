/** After a push the cursor moves over this folder's own changes, never over a teammate's change in between. */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { setup, sync, syncJson } from "../support/clients.js";
import { engineSync } from "../support/engine.js";

describe.each(DATABASE_KINDS)("the cursor after a push on %s", (kind) => {
  it("moves over our own changes (the next sync pulls nothing) but stops before a teammate's change made meanwhile", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "x.md"), "x\n");
    await writeFile(join(a, "team", "w.md"), "w\n");
    const pushed = await sync(a, envA);
    expect(pushed.stdout).toContain("cursor 2");
    const again = await sync(a, envA);
    expect(again.stdout).toContain("pulled 0 change(s)");
    expect(again.stdout).toContain("cursor 2");

    // B pushes z.md after A's pull and before A's batch: A's y.md takes cursor 4, B's z.md cursor 3.
    await writeFile(join(a, "team", "y.md"), "y\n");
    const raced = await engineSync(a, envA.TEAMMEM_TOKEN!, { wrap: (api) => ({
      ...api,
      batch: async (request) => {
        await writeFile(join(b, "team", "z.md"), "z\n");
        expect((await sync(b, envB)).code).toBe(0);
        return api.batch(request);
      },
    }) });
    expect(raced.pushed.applied).toEqual(["team/y.md"]);
    expect(raced.cursor).toBe(2);
    const caughtUp = await sync(a, envA);
    expect(caughtUp.stdout).toContain("cursor 4");
    expect(await readFile(join(a, "team", "z.md"), "utf8")).toBe("z\n");
  });

  it("moves over both feed entries of our own rename (try13 F3), but not over a teammate's change made before it", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "old.md"), "notes\n");
    expect((await sync(a, envA)).stdout).toContain("cursor 1");
    // The rename is the old path's tombstone (cursor 2) and the new path's version (cursor 3).
    await rename(join(a, "team", "old.md"), join(a, "team", "new.md"));
    const renamed = await sync(a, envA);
    expect(renamed.stdout).toContain("pushed: 1 applied");
    expect(renamed.stdout).toContain("cursor 3");
    expect((await syncJson(a, envA)).json).toMatchObject({ pulled: { changes: 0 }, events: [], cursor: 3 });

    // B's z.md lands between A's pull and A's batch (cursor 4); A's rename takes 5 and 6: A stays at 3.
    await rename(join(a, "team", "new.md"), join(a, "team", "newer.md"));
    const raced = await engineSync(a, envA.TEAMMEM_TOKEN!, { wrap: (api) => ({
      ...api,
      batch: async (request) => {
        await writeFile(join(b, "team", "z.md"), "z\n");
        expect((await sync(b, envB)).code).toBe(0);
        return api.batch(request);
      },
    }) });
    expect(raced.pushed.applied).toEqual(["team/newer.md"]);
    expect(raced.cursor).toBe(3);
    expect((await syncJson(a, envA)).json).toMatchObject({ pulled: { written: ["team/z.md"] }, cursor: 6 });
    expect(await readFile(join(a, "team", "z.md"), "utf8")).toBe("z\n");
  });
});
