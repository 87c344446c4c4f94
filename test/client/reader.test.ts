/** A reader (read-only token) who edits team files: told once that the edits are not sent, never stuck. */
import { join } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { versionsOf } from "../support/server.js";

describe.each(DATABASE_KINDS)("a reader's local edits on %s", (kind) => {
  it("are rejected as forbidden once, shown in status, not resent until the file changes again, and syncs exit 0", async () => {
    const { server, a, envA, b } = await setup(kind);
    await writeFile(join(a, "team", "guide.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const readerEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "reader") };
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(join(b, "team", "guide.md"), "utf8")).toBe("v1\n");

    await writeFile(join(b, "team", "guide.md"), "v1 edited by a reader\n");
    const first = await sync(b, readerEnv);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("your token is read-only (reader): local edits to team/guide.md are not sent");
    const st = await status(b);
    expect(st.pending).toEqual([]);
    expect(st.rejected).toEqual([
      expect.objectContaining({ path: "team/guide.md", code: "forbidden", retry: false, message: expect.stringContaining("read-only") }),
    ]);
    expect((await teammem(["status", "--dir", b])).stdout).toContain("team/guide.md forbidden: your token is read-only (reader)");

    const second = await sync(b, readerEnv);
    expect(second).toMatchObject({ code: 0, stderr: "" }); // not resent, not stuck
    // The reader still receives the team's changes.
    await writeFile(join(a, "team", "other.md"), "new\n");
    await sync(a, envA);
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(join(b, "team", "other.md"), "utf8")).toBe("new\n");

    await writeFile(join(b, "team", "guide.md"), "edited again\n");
    const third = await sync(b, readerEnv);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain("local edits to team/guide.md are not sent");
    expect(await versionsOf(server.database, "guide.md")).toHaveLength(1);
  });
});
