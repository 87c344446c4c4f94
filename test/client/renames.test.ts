/**
 * Issue 8, renames: a delete and a create of the same (or nearly the same) content in one sync
 * travel as one rename; the teammate's client moves its file and says so; a concurrent edit of the
 * old path follows the file to its new path instead of bringing the old path back.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, syncJson, tree, type Clients } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { versionsOf } from "../support/server.js";

const NOTES = "# Build\n\n- make\n- make check\n- make install\n";
const read = (dir: string, file: string) => readFile(join(dir, "team", file), "utf8");
const write = (dir: string, file: string, content: string) => writeFile(join(dir, "team", file), content);
async function move(dir: string, from: string, to: string): Promise<void> {
  await mkdir(join(dir, "team", to, ".."), { recursive: true });
  await rename(join(dir, "team", from), join(dir, "team", to));
}

/** `a.md` with NOTES on the server and in both folders. */
async function shared({ a, b, envA, envB }: Clients): Promise<void> {
  await write(a, "a.md", NOTES);
  expect((await sync(a, envA)).code).toBe(0);
  expect((await sync(b, envB)).code).toBe(0);
}

describe.each(DATABASE_KINDS)("renames on %s", (kind) => {
  it("sends a moved file as one rename, recorded in history, and moves the teammate's file with a line saying so", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients);
    await move(a, "a.md", "docs/a.md");
    const moved = await syncJson(a, envA);
    expect(moved.json.events).toEqual([{ type: "rename-sent", from: "team/a.md", to: "team/docs/a.md", version: 1 }]);
    expect(await versionsOf(server.database, "a.md")).toEqual([
      { version: 1, kind: "write", content: NOTES },
      { version: 2, kind: "rename", content: null },
    ]);
    expect(await versionsOf(server.database, "docs/a.md")).toEqual([{ version: 1, kind: "rename", content: NOTES }]);
    expect(await status(a)).toMatchObject({ modified: [], pending: [] });

    const syncB = await sync(b, envB);
    expect(syncB.stdout).toContain("team/a.md was renamed to team/docs/a.md by alice");
    expect(syncB.stdout).not.toContain("created by");
    expect(await tree(b)).toEqual(["team/docs/a.md"]);
    expect(await status(b)).toMatchObject({ modified: [], pending: [] });
  });

  it("says what became of a delete or a rename made here when a teammate renamed the same file first", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients);
    await write(a, "b.md", "# Deploy\n\n- ship\n- roll back\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await move(a, "a.md", "docs/a.md");
    await move(a, "b.md", "docs/b.md");
    expect((await sync(a, envA)).code).toBe(0);
    await move(b, "a.md", "build.md"); // renamed here too, elsewhere
    await rm(join(b, "team", "b.md")); // deleted here
    const r = await syncJson(b, envB);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.events).toEqual(
      expect.arrayContaining([
        { type: "renamed", from: "team/a.md", to: "team/docs/a.md", author: "alice", version: 2, followed: false, removedHere: "renamed", renamedHereTo: "team/build.md" },
        { type: "renamed", from: "team/b.md", to: "team/docs/b.md", author: "alice", version: 2, followed: false, removedHere: "deleted" },
      ]),
    );
    expect((await teammem(["sync", "--dir", b], envB)).code).toBe(0);
    expect(await tree(b)).toEqual(["team/build.md", "team/docs/a.md", "team/docs/b.md"]);
  });

  it("sends a file moved and edited in one sync as a rename when at least half of it is unchanged", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients);
    await move(a, "a.md", "build.md");
    await write(a, "build.md", NOTES + "- make dist\n");
    expect((await syncJson(a, envA)).json.events).toEqual([{ type: "rename-sent", from: "team/a.md", to: "team/build.md", version: 1 }]);
    expect((await versionsOf(server.database, "build.md"))[0]).toMatchObject({ kind: "rename", content: NOTES + "- make dist\n" });
    await write(a, "unrelated.md", "something else entirely\n");
    await move(a, "build.md", "gone.md");
    await write(a, "gone.md", "rewritten from scratch\n");
    await sync(a, envA);
    expect((await versionsOf(server.database, "build.md")).at(-1)).toMatchObject({ kind: "delete" }); // too different: a delete and a create
    await sync(b, envB);
    expect(await tree(b)).toEqual(["team/gone.md", "team/unrelated.md"]);
  });

  it("lets a teammate's edit of the old path follow the file to its new path when they sync after the rename", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients);
    await move(a, "a.md", "docs/a.md");
    await sync(a, envA);
    await write(b, "a.md", NOTES + "- bob: make -j8\n");
    const syncB = await sync(b, envB);
    expect(syncB.stdout).toContain("team/a.md was renamed to team/docs/a.md by alice; your edit of it moved there too");
    expect(await tree(b)).toEqual(["team/docs/a.md"]);
    expect(await read(b, "docs/a.md")).toBe(NOTES + "- bob: make -j8\n");
    expect((await versionsOf(server.database, "a.md")).at(-1)).toMatchObject({ kind: "rename", content: null }); // never brought back
    await sync(a, envA);
    expect(await read(a, "docs/a.md")).toBe(NOTES + "- bob: make -j8\n");
    expect(existsSync(join(a, "team", "a.md"))).toBe(false);
  });

  it("carries an edit of the old path to the new path on the server when the push races the rename", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA } = clients;
    await shared(clients);
    await write(b, "a.md", NOTES + "- bob: make -j8\n");
    const raced = await engineSync(b, await server.token("bob"), {
      wrap: (api) => ({
        ...api,
        batch: async (request) => {
          await move(a, "a.md", "docs/a.md");
          expect((await sync(a, envA)).code).toBe(0);
          return api.batch(request);
        },
      }),
    });
    expect(raced.events).toContainEqual({ type: "renamed", from: "team/a.md", to: "team/docs/a.md", author: "alice", version: 2, followed: true });
    expect(await tree(b)).toEqual(["team/docs/a.md"]);
    expect(await read(b, "docs/a.md")).toBe(NOTES + "- bob: make -j8\n");
    expect((await versionsOf(server.database, "a.md")).map((v) => v.kind)).toEqual(["write", "rename"]);
    expect(await status(b)).toMatchObject({ modified: [], pending: [] });
  });

  it("merges a teammate's edit of the old path into a file renamed here and not sent yet, then sends the rename", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients);
    await write(a, "a.md", NOTES + "- alice: make lint\n");
    await sync(a, envA);
    await move(b, "a.md", "docs/build.md");
    await write(b, "docs/build.md", NOTES + "- bob: make -j8\n");
    const syncB = await syncJson(b, envB);
    expect(syncB.json.events).toEqual([
      { type: "merged", path: "team/docs/build.md", author: "alice", version: 2, union: true },
      { type: "rename-sent", from: "team/a.md", to: "team/docs/build.md", version: 1 },
    ]);
    expect(await read(b, "docs/build.md")).toBe(NOTES + "- alice: make lint\n- bob: make -j8\n");
    expect((await versionsOf(server.database, "a.md")).map((v) => v.kind)).toEqual(["write", "write", "rename"]);
    await sync(a, envA);
    expect(await tree(a)).toEqual(["team/docs/build.md"]);
  });

  it("does not take moving many files into a folder for a mass delete", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    for (let i = 0; i < 12; i++) await write(a, `n${i}.md`, `# Note ${i}\n\n- fact ${i}\n`);
    await sync(a, envA);
    await sync(b, envB);
    for (let i = 0; i < 12; i++) await move(a, `n${i}.md`, `notes/n${i}.md`);
    const moved = await syncJson(a, envA);
    expect(moved.code).toBe(0);
    expect(moved.json.events.filter((e: { type: string }) => e.type === "rename-sent")).toHaveLength(12);
    await sync(b, envB);
    expect(await tree(b)).toEqual(Array.from({ length: 12 }, (_, i) => `team/notes/n${i}.md`).sort());
  });
});
