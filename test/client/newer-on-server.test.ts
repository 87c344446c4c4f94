/**
 * A teammate's newer version kept out by a local edit that is never sent (held back, read-only
 * token): listed by status while the edit stays, written by the next sync once the edit is reverted.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";

describe.each(DATABASE_KINDS)("a newer server version kept out by an unsent local edit on %s", (kind) => {
  it("is listed by status while the edit is held back, and written by the sync after the edit is reverted", async () => {
    const { a, b, envA, envB } = await setup(kind);
    const n3a = join(a, "team", "n3.md");
    const n3b = join(b, "team", "n3.md");
    await writeFile(n3a, "original\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    await writeFile(n3b, `original\ntoken ${fakeGithubPat()}\n`); // held back
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(n3a, "alice's newer version\n");
    expect((await sync(a, envA)).code).toBe(0);

    const kept = await sync(b, envB);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain("newer on the server, not applied here");
    expect(await readFile(n3b, "utf8")).toContain("token "); // the local edit is never overwritten
    expect((await status(b)).newerOnServer).toEqual([
      { path: "team/n3.md", version: 2, reason: expect.stringContaining("your local edit is held back") },
    ]);
    const human = (await teammem(["status", "--dir", b])).stdout;
    expect(human).toContain("team/n3.md (server version 2): your local edit is held back");
    expect(human).not.toContain("everything synced");
    expect((await sync(b, envB)).code).toBe(0); // still held back: still listed
    expect((await status(b)).newerOnServer).toHaveLength(1);

    await writeFile(n3b, "original\n"); // reverted
    const after = await sync(b, envB);
    expect(after.code).toBe(0);
    expect(await readFile(n3b, "utf8")).toBe("alice's newer version\n");
    expect((await status(b)).newerOnServer).toEqual([]);
    expect((await teammem(["status", "--dir", b])).stdout).toContain("everything synced");
  });

  it("is listed for a reader's rejected edit, and written after the reader reverts it", async () => {
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
    expect(await readFile(guideB, "utf8")).toBe("v1 edited by a reader\n");
    expect((await status(b)).newerOnServer).toEqual([
      { path: "team/guide.md", version: 2, reason: expect.stringContaining("read-only") },
    ]);

    await writeFile(guideB, "v1\n");
    expect((await sync(b, readerEnv)).code).toBe(0);
    expect(await readFile(guideB, "utf8")).toBe("v2 by alice\n");
    const st = await status(b);
    expect(st.newerOnServer).toEqual([]);
    expect(st.modified).toEqual([]);
    expect((await teammem(["status", "--dir", b])).stdout).toContain("everything synced");
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
