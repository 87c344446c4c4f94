/**
 * Issue 8, "no edit leaves the working tree unseen", for the stat cache (apps/client/src/local/file-stat.ts):
 * a file whose size, mtime, ctime and inode are the ones kept with its base is not read again, so
 * a stat must be kept only when no later write can reproduce it. Tools that copy a file's mtime
 * (`cp -p`, `rsync -t`, `touch -d`, `tar -x`) leave a fresh ctime: on a file system with
 * whole-second timestamps (ext4 with 128-byte inodes, ext3, HFS+, FAT) a second same-size copy
 * with the same mtime within that second had exactly the stat kept by a sync in between, and was
 * never sent (seen by hand on an `mkfs.ext4 -I 128` loop mount: `cp -p a f; teammem sync;
 * cp -p b f; teammem sync` sent nothing, bob kept a). Two clients on a real server.
 */
import { cp, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { setup, sync } from "../support/clients.js";

const longAgo = new Date("2020-01-01T00:00:00Z");

async function keptStat(dir: string, path: string): Promise<unknown> {
  const state = JSON.parse(await readFile(join(dir, ".teammem", "state.json"), "utf8")) as { bases: Record<string, { stat?: unknown }> };
  return state.bases[path]?.stat;
}

describe("the stat cache never hides an edit", () => {
  it("keeps no stat for a file whose mtime was copied back (fresh ctime), and sends every same-size copy", async () => {
    const { a, b, envA, envB } = await setup("pglite");
    const file = join(a, "team", "a.md");
    await writeFile(file, "v1 one\n");
    expect((await sync(a, envA)).code).toBe(0);

    // `cp -p` of another file of the same size, dated 2020: read and pushed, but its ctime is now.
    await writeFile(file, "v2 two\n");
    await utimes(file, longAgo, longAgo);
    expect((await sync(a, envA)).code).toBe(0);
    expect(await keptStat(a, "a.md")).toBeUndefined();

    // A second same-size copy with the same mtime: sent (on a whole-second file system its stat
    // would have been the one kept above).
    await writeFile(file, "v3 six\n");
    await utimes(file, longAgo, longAgo);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "a.md"), "utf8")).toBe("v3 six\n");

    // A different file moved into place (new inode) with the same size and mtime: sent too.
    await writeFile(join(a, "other.tmp"), "v4 ten\n");
    await utimes(join(a, "other.tmp"), longAgo, longAgo);
    await rename(join(a, "other.tmp"), file);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "a.md"), "utf8")).toBe("v4 ten\n");

    // The state folder copied to another folder (other inodes): the files are read again, nothing lost.
    await rm(join(b, ".teammem"), { recursive: true });
    await cp(join(a, ".teammem"), join(b, ".teammem"), { recursive: true });
    await writeFile(join(b, "team", "a.md"), "v5 bob\n");
    await utimes(join(b, "team", "a.md"), longAgo, longAgo);
    expect((await sync(b, envA)).code).toBe(0);
    expect((await sync(a, envA)).code).toBe(0);
    expect(await readFile(file, "utf8")).toBe("v5 bob\n");
  });
});
