/** A folder replaced by a file of the same name (and back): the deletes go before the put, so nothing is refused. */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, tree } from "../support/clients.js";

describe.each(DATABASE_KINDS)("changing a path's type on %s", (kind) => {
  it("sends a folder turned into a file of the same name in one sync, and a file turned back into a folder", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "topics"));
    await writeFile(join(a, "team", "topics", "one.md"), "one\n");
    await writeFile(join(a, "team", "topics", "two.md"), "two\n");
    expect((await sync(a, envA)).code).toBe(0);

    await rm(join(a, "team", "topics"), { recursive: true });
    await writeFile(join(a, "team", "topics"), "x\n");
    const toFile = await sync(a, envA);
    expect(toFile.code).toBe(0);
    expect(toFile.stderr).not.toContain("path_type_conflict");
    expect(toFile.stdout).toContain("3 applied");
    const st = await status(a);
    expect(st.rejected).toEqual([]);
    expect(st.pending).toEqual([]);
    expect((await teammem(["status", "--dir", a])).stdout).toContain("everything synced");
    expect((await sync(b, envB)).code).toBe(0);
    expect(await tree(b)).toEqual(["team/topics"]);
    expect(await readFile(join(b, "team", "topics"), "utf8")).toBe("x\n");

    await rm(join(a, "team", "topics"));
    await mkdir(join(a, "team", "topics"));
    await writeFile(join(a, "team", "topics", "again.md"), "again\n");
    const toFolder = await sync(a, envA);
    expect(toFolder.code).toBe(0);
    expect(toFolder.stdout).toContain("2 applied");
    expect((await status(a)).rejected).toEqual([]);
  });

  it("sends a file renamed to another letter case in one sync", async () => {
    const { a, envA } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "n\n");
    expect((await sync(a, envA)).code).toBe(0);
    await rm(join(a, "team", "notes.md"));
    await writeFile(join(a, "team", "Notes.md"), "n\n");
    const renamed = await sync(a, envA);
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toContain("1 applied"); // one rename operation (issue 8)
    expect(renamed.stdout).toContain("team/notes.md renamed to team/Notes.md (v1)");
    expect(await status(a)).toMatchObject({ rejected: [], modified: [], pending: [] });
  });
});
