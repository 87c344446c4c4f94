/**
 * A teammate's newer version of a file changed here that is not sent (held back, read-only token,
 * conflict markers): merged into the working file when it can be, otherwise listed by status as
 * "newer on the server" until the local edit is settled.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

describe.each(DATABASE_KINDS)("a newer server version of a file with an unsent local edit on %s", (kind) => {
  it("is merged into a held-back edit, which stays held back until the secret is removed", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const n3a = join(a, "team", "n3.md");
    const n3b = join(b, "team", "n3.md");
    await writeFile(n3a, "original\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    const token = fakeGithubPat();
    await writeFile(n3b, `original\ntoken ${token}\n`); // held back
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(n3a, "alice's newer version\n");
    expect((await sync(a, envA)).code).toBe(0);

    const merged = await sync(b, envB);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain("team/n3.md: your edit merged with alice's edit (v2)");
    expect(merged.stderr).toContain("held back team/n3.md:2 github-pat");
    expect(await readFile(n3b, "utf8")).toBe(`alice's newer version\ntoken ${token}\n`);
    expect((await status(b)).newerOnServer).toEqual([]);

    await writeFile(n3b, "alice's newer version\n"); // the secret removed: nothing left to send
    expect((await sync(b, envB)).code).toBe(0);
    const st = await status(b);
    expect(st).toMatchObject({ heldBack: [], modified: [], pending: [], newerOnServer: [] });
    expect((await teammem(["status", "--dir", b])).stdout).toContain("everything synced");
    expect(await dumpAllRows(server.database)).not.toContain(token);
  });

  it("gives a reader's local edit that overlaps a teammate's conflict markers, settled with resolve --take theirs", async () => {
    const { server, a, b, envA } = await setup(kind);
    const readerEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "reader") };
    const guideA = join(a, "team", "guide.md");
    const guideB = join(b, "team", "guide.md");
    await writeFile(guideA, "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, readerEnv)).code).toBe(0);

    await writeFile(guideB, "v1 edited by a reader\n");
    expect((await sync(b, readerEnv)).code).toBe(0); // rejected: forbidden
    await writeFile(guideA, "v2 by alice\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(guideB, "utf8")).toContain("<<<<<<< yours (local)\nv1 edited by a reader\n");

    expect((await teammem(["resolve", "team/guide.md", "--take", "theirs", "--dir", b], readerEnv)).code).toBe(0);
    expect(await readFile(guideB, "utf8")).toBe("v2 by alice\n");
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await status(b)).toMatchObject({ modified: [], conflicts: [], newerOnServer: [], rejected: [] });
    expect((await teammem(["status", "--dir", b])).stdout).toContain("everything synced");
  });

  it("is kept out of a file whose conflict markers are not settled yet, listed with why, and merged by the push once they are", async () => {
    const { a, b, envA, envB } = await setup(kind);
    const fa = join(a, "team", "cfg.json");
    const fb = join(b, "team", "cfg.json");
    await writeFile(fa, "mode: 1\n---\nlevel: 1\n");
    await sync(a, envA);
    await sync(b, envB);
    await writeFile(fa, "mode: 2\n---\nlevel: 1\n");
    await writeFile(fb, "mode: 3\n---\nlevel: 1\n");
    await sync(a, envA);
    await sync(b, envB); // markers in B's file
    await writeFile(fa, "mode: 2\n---\nlevel: 2\n");
    await sync(a, envA);

    const kept = await sync(b, envB);
    expect(kept.stdout).toContain("newer on the server, not applied here");
    expect((await status(b)).newerOnServer).toEqual([
      { path: "team/cfg.json", version: 3, reason: "the file still has conflict markers; settle them first, then sync" },
    ]);
    expect(await readFile(fb, "utf8")).toContain(">>>>>>> alice (v2)");

    await writeFile(fb, "mode: 3\n---\nlevel: 1\n"); // settled: keep mine
    const pushed = await sync(b, envB);
    expect(pushed.code).toBe(0);
    expect(await readFile(fb, "utf8")).toBe("mode: 3\n---\nlevel: 2\n"); // the server merged alice's v3 into it
    expect((await status(b)).newerOnServer).toEqual([]);
    await sync(a, envA);
    expect(await readFile(fa, "utf8")).toBe("mode: 3\n---\nlevel: 2\n");
  });

  it("is dropped once the local edit is sent and merged", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "m.md"), "one\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(join(a, "team", "m.md"), "ONE\ntwo\nthree\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(b, "team", "m.md"), "one\ntwo\nTHREE\n");
    const merged = await sync(b, envB);
    expect(merged.code).toBe(0);
    expect(merged.stdout).not.toContain("newer on the server");
    expect(await readFile(join(b, "team", "m.md"), "utf8")).toBe("ONE\ntwo\nTHREE\n");
    expect((await status(b)).newerOnServer).toEqual([]);
  });
});
