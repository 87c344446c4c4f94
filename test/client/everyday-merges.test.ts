/**
 * Issue 8, "everyday memory edits merge": concurrent edits of memory files merge (union for
 * insertions at one point), overlapping edits leave conflict markers in the working file (not
 * pushed until settled), and every outcome that changes what the user last saw is announced.
 * Real server (buildApp on port 0) on PostgreSQL and PGlite, real folders, the CLI in-process.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { addClient, setup, status, sync, syncJson, type Clients } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { versionsOf } from "../support/server.js";

const MEMORY = "# Memory\n\n- build with `make`\n";
const read = (dir: string, file: string) => readFile(join(dir, "team", file), "utf8");
const write = (dir: string, file: string, content: string) => writeFile(join(dir, "team", file), content);

/** `file` with `content` on the server and in both A's and B's folders. */
async function shared({ a, b, envA, envB }: Clients, file: string, content: string): Promise<void> {
  await write(a, file, content);
  expect((await sync(a, envA)).code).toBe(0);
  expect((await sync(b, envB)).code).toBe(0);
  expect(await read(b, file)).toBe(content);
}

const openConflicts = async (clients: Clients, path: string) =>
  rowsOf<{ id: string }>(clients.server.database, sql`SELECT id FROM conflicts WHERE path = ${path} AND status = 'open'`);

describe.each(DATABASE_KINDS)("everyday memory edits on %s", (kind) => {
  it("keeps both lines two teammates appended to team/MEMORY.md, the server's first, and announces the merge", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "MEMORY.md", MEMORY);
    await write(a, "MEMORY.md", MEMORY + "- alice: lint before pushing\n");
    await write(b, "MEMORY.md", MEMORY + "- bob: tests need docker\n");
    expect((await sync(a, envA)).code).toBe(0);
    const syncB = await sync(b, envB);
    expect(syncB.code).toBe(0);
    expect(syncB.stdout).toContain("team/MEMORY.md: your edit merged with alice's edit (v2); lines added on both sides kept both");
    const both = MEMORY + "- alice: lint before pushing\n- bob: tests need docker\n";
    expect(await read(b, "MEMORY.md")).toBe(both);
    expect((await sync(a, envA)).stdout).toContain("team/MEMORY.md updated by bob (v3)");
    expect(await read(a, "MEMORY.md")).toBe(both);
    expect(await versionsOf(clients.server.database, "MEMORY.md")).toHaveLength(3);
    expect(await openConflicts(clients, "MEMORY.md")).toEqual([]);
    for (const dir of [a, b]) expect(await status(dir)).toMatchObject({ modified: [], pending: [], conflicts: [] });
  });

  it("keeps the lines of three teammates appending at once, in the order they reached the server", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "MEMORY.md", MEMORY);
    const carol = await addClient(clients, "carol");
    expect((await sync(carol.dir, carol.env)).code).toBe(0);
    await write(a, "MEMORY.md", MEMORY + "- a\n");
    await write(b, "MEMORY.md", MEMORY + "- b\n");
    await write(carol.dir, "MEMORY.md", MEMORY + "- c\n");
    for (const [dir, env] of [[a, envA], [b, envB], [carol.dir, carol.env], [a, envA], [b, envB]] as const) expect((await sync(dir, env)).code).toBe(0);
    for (const dir of [a, b, carol.dir]) expect(await read(dir, "MEMORY.md")).toBe(MEMORY + "- a\n- b\n- c\n");
  });

  it("keeps bullets two teammates inserted at the same place in the middle of a file", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    const base = "# Build\n- make\n\n# Test\n- make check\n";
    await shared(clients, "topics.md", base);
    await write(a, "topics.md", "# Build\n- make\n- make -j8 is safe\n\n# Test\n- make check\n");
    await write(b, "topics.md", "# Build\n- make\n- ccache speeds it up\n\n# Test\n- make check\n");
    await sync(a, envA);
    await sync(b, envB);
    await sync(a, envA);
    const both = "# Build\n- make\n- make -j8 is safe\n- ccache speeds it up\n\n# Test\n- make check\n";
    expect(await read(a, "topics.md")).toBe(both);
    expect(await read(b, "topics.md")).toBe(both);
  });

  it("writes overlapping edits as labelled conflict markers, does not push the file until they are removed, then sends it", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients, "style.md", "indent: 2 spaces\nquotes: double\n");
    await write(a, "style.md", "indent: tabs\nquotes: double\n");
    await write(b, "style.md", "indent: 4 spaces\nquotes: double\n");
    await sync(a, envA);
    const syncB = await sync(b, envB);
    expect(syncB.code).toBe(0);
    expect(syncB.stdout).toContain("team/style.md: your edit and alice's edit (v2) changed the same lines");
    expect(syncB.stdout).toContain("not sent, conflict markers still in: team/style.md (line 1)");
    const marked = "<<<<<<< yours (local)\nindent: 4 spaces\n||||||| base v1\nindent: 2 spaces\n=======\nindent: tabs\n>>>>>>> alice (v2)\nquotes: double\n";
    expect(await read(b, "style.md")).toBe(marked);
    const st = await status(b);
    expect(st.conflicts).toEqual([
      expect.objectContaining({ path: "team/style.md", conflictId: null, headVersion: 2, author: "alice", state: "markers", markersAt: 1 }),
    ]);
    expect(st.modified).toEqual([]);
    expect(await readFile(join(b, st.conflicts[0].copy), "utf8")).toBe("indent: 4 spaces\nquotes: double\n");
    const human = (await teammem(["status", "--dir", b])).stdout;
    expect(human).toContain("team/style.md: conflict markers from line 1 (yours and alice's version 2); not sent until they are gone");
    expect(human).not.toContain("everything synced");

    // Another sync sends nothing: the markers never reach the server.
    expect((await syncJson(b, envB)).json).toMatchObject({ pushed: { applied: [], merged: [] }, unresolved: [{ path: "team/style.md", line: 1 }] });
    expect((await versionsOf(server.database, "style.md")).map((v) => v.content)).not.toContainEqual(expect.stringContaining("<<<<<<<"));

    await write(b, "style.md", "indent: tabs (4 wide)\nquotes: double\n");
    const settled = await syncJson(b, envB);
    expect(settled.json.pushed.applied).toEqual(["team/style.md"]);
    expect(settled.json.unresolved).toEqual([]);
    expect((await status(b)).conflicts).toEqual([]);
    await sync(a, envA);
    expect(await read(a, "style.md")).toBe("indent: tabs (4 wide)\nquotes: double\n");
  });

  it("settles conflict markers with teammem resolve --take theirs or --take mine, and refuses --take file while markers remain", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    for (const file of ["t.md", "m.md"]) {
      await shared(clients, file, "value: base\n");
      await write(a, file, "value: alice\n");
      await write(b, file, "value: bob\n");
    }
    await sync(a, envA);
    await sync(b, envB);
    const refused = await teammem(["resolve", "team/t.md", "--dir", b], envB);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("team/t.md still has conflict markers (line 1)");

    expect(await teammem(["resolve", "team/t.md", "--take", "theirs", "--dir", b], envB)).toMatchObject({ code: 0 });
    expect(await read(b, "t.md")).toBe("value: alice\n");
    const mine = await teammem(["resolve", "team/m.md", "--take", "mine", "--dir", b], envB);
    expect(mine.stdout).toContain("resolved the conflict on team/m.md with mine; the next sync sends it");
    expect(await read(b, "m.md")).toBe("value: bob\n");
    expect((await status(b)).conflicts).toEqual([]);
    await sync(b, envB);
    await sync(a, envA);
    expect(await read(a, "m.md")).toBe("value: bob\n");
    expect(await read(a, "t.md")).toBe("value: alice\n");
  });

  it("writes markers when a push races a teammate's (the server keeps a conflict record) and closes the record once the file is settled", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "deploy.md", "deploy: friday\n");
    await write(b, "deploy.md", "deploy: monday\n");
    // A pushes between B's pull and B's push: the server merges B's edit, and it overlaps.
    const raced = await engineSync(b, envB.TEAMMEM_TOKEN ?? (await clients.server.token("bob")), {
      wrap: (api) => ({
        ...api,
        batch: async (request) => {
          await write(a, "deploy.md", "deploy: never on friday\n");
          expect((await sync(a, envA)).code).toBe(0);
          return api.batch(request);
        },
      }),
    });
    expect(raced.pushed.conflicts).toEqual(["team/deploy.md"]);
    expect(raced.events).toContainEqual(expect.objectContaining({ type: "conflict", path: "team/deploy.md", author: "alice", version: 2 }));
    expect(await read(b, "deploy.md")).toBe(
      "<<<<<<< yours (local)\ndeploy: monday\n||||||| base v1\ndeploy: friday\n=======\ndeploy: never on friday\n>>>>>>> alice (v2)\n",
    );
    expect(await openConflicts(clients, "deploy.md")).toHaveLength(1); // nothing acknowledged is lost
    expect((await status(b)).conflicts).toEqual([expect.objectContaining({ path: "team/deploy.md", conflictId: expect.any(String), state: "markers" })]);

    await write(b, "deploy.md", "deploy: monday, never on friday\n");
    const settled = await sync(b, envB);
    expect(settled.stdout).toContain("conflict on team/deploy.md settled; the server's conflict record is closed (v3)");
    expect(await openConflicts(clients, "deploy.md")).toEqual([]);
    expect((await status(b)).conflicts).toEqual([]);
    await sync(a, envA);
    expect(await read(a, "deploy.md")).toBe("deploy: monday, never on friday\n");
  });

  it("applies the union policy in the server's merge when pushes race", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "MEMORY.md", MEMORY);
    await write(b, "MEMORY.md", MEMORY + "- bob\n");
    const raced = await engineSync(b, await clients.server.token("bob"), {
      wrap: (api) => ({
        ...api,
        batch: async (request) => {
          await write(a, "MEMORY.md", MEMORY + "- alice\n");
          expect((await sync(a, envA)).code).toBe(0);
          return api.batch(request);
        },
      }),
    });
    expect(raced.pushed.merged).toEqual(["team/MEMORY.md"]);
    expect(raced.events).toContainEqual({ type: "merged", path: "team/MEMORY.md", author: "alice", version: 3, union: false });
    expect(await read(b, "MEMORY.md")).toBe(MEMORY + "- alice\n- bob\n");
    await sync(a, envA);
    expect(await read(a, "MEMORY.md")).toBe(MEMORY + "- alice\n- bob\n");
    expect(await sync(b, envB)).toMatchObject({ code: 0 });
  });

  it("treats the same new path on both sides as one version when equal, unites different Markdown, and marks other files", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await write(a, "same.md", "# Same\n");
    await write(b, "same.md", "# Same\n");
    await write(a, "AGENTS.md", "# Agents\n- run make check\n");
    await write(b, "AGENTS.md", "# Agents\n- never push to main\n");
    await write(a, "ports.json", '{ "web": 8080 }\n');
    await write(b, "ports.json", '{ "web": 3000 }\n');
    await sync(a, envA);
    const syncB = await sync(b, envB);
    expect(syncB.code).toBe(0);
    expect(await versionsOf(server.database, "same.md")).toHaveLength(1);
    expect(await read(b, "AGENTS.md")).toBe("# Agents\n- run make check\n- never push to main\n");
    expect(await read(b, "ports.json")).toBe(
      '<<<<<<< yours (local)\n{ "web": 3000 }\n||||||| base (none: new on both sides)\n=======\n{ "web": 8080 }\n>>>>>>> alice (v1)\n',
    );
    await sync(a, envA);
    expect(await read(a, "AGENTS.md")).toBe("# Agents\n- run make check\n- never push to main\n");
    expect(await read(a, "ports.json")).toBe('{ "web": 8080 }\n');
  });

  it("does not treat a whole-file change to CRLF as a conflict with a teammate's edit, and keeps CRLF", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "eol.json", "one\ntwo\nthree\n");
    await write(a, "eol.json", "one\nTWO\nthree\n");
    await write(b, "eol.json", "one\r\ntwo\r\nthree\r\n");
    await sync(a, envA);
    const syncB = await sync(b, envB);
    expect(syncB.stdout).toContain("team/eol.json: your edit merged with alice's edit (v2)");
    expect(await read(b, "eol.json")).toBe("one\r\nTWO\r\nthree\r\n");
    await sync(a, envA);
    expect(await read(a, "eol.json")).toBe("one\r\nTWO\r\nthree\r\n");
  });

  it("announces a delete overridden by a teammate's edit and an edit kept over a teammate's delete", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "x.md", "x\n");
    await shared(clients, "y.md", "y\n");
    await write(a, "x.md", "x edited by alice\n");
    await rm(join(a, "team", "y.md"));
    await sync(a, envA);
    await rm(join(b, "team", "x.md"));
    await write(b, "y.md", "y edited by bob\n");
    const syncB = await syncJson(b, envB);
    expect(syncB.json.events).toEqual(
      expect.arrayContaining([
        { type: "delete-overridden", path: "team/x.md", author: "alice", version: 2 },
        { type: "edit-kept", path: "team/y.md", author: "alice", version: 2 },
      ]),
    );
    const human = await sync(b, envB); // nothing new: the lines were printed once
    expect(human.stdout).not.toContain("overridden");
    expect(await read(b, "x.md")).toBe("x edited by alice\n");
    expect(await read(b, "y.md")).toBe("y edited by bob\n");
    await sync(a, envA);
    expect(await read(a, "y.md")).toBe("y edited by bob\n");
  });

  it("prints each teammate's version written, created or deleted, and --json carries the same events", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    await shared(clients, "old.md", "old\n");
    await shared(clients, "keep.md", "keep\n");
    await write(a, "new.md", "new\n");
    await write(a, "keep.md", "keep, edited\n");
    await rm(join(a, "team", "old.md"));
    await sync(a, envA);
    const human = await sync(b, envB);
    for (const line of ["team/new.md created by alice (v1)", "team/keep.md updated by alice (v2)", "team/old.md deleted by alice (v2)"])
      expect(human.stdout).toContain(line);
    await write(a, "keep.md", "keep, edited twice\n");
    await sync(a, envA);
    expect((await syncJson(b, envB)).json.events).toEqual([{ type: "updated", path: "team/keep.md", author: "alice", version: 3 }]);
  });

  it("merges an edit queued while offline with a teammate's edit at the next sync instead of sending it as queued", async () => {
    const clients = await setup(kind);
    const { server, a, b, envA, envB } = clients;
    await shared(clients, "MEMORY.md", MEMORY);
    await server.stop();
    await write(b, "MEMORY.md", MEMORY + "- bob, offline\n");
    expect((await sync(b, envB)).code).toBe(1);
    expect((await status(b)).pending).toHaveLength(1);
    await server.start();
    await write(a, "MEMORY.md", MEMORY + "- alice\n");
    await sync(a, envA);
    const back = await syncJson(b, envB);
    expect(back.json.pushed.applied).toEqual(["team/MEMORY.md"]); // the merge, as a fast-forward
    expect(await read(b, "MEMORY.md")).toBe(MEMORY + "- alice\n- bob, offline\n");
    expect(await versionsOf(server.database, "MEMORY.md")).toHaveLength(3);
  });

  it("follows the merge rules of the client config: a rule making MEMORY.md `conflict` writes markers for two appends", async () => {
    const clients = await setup(kind);
    const { a, b, envA, envB } = clients;
    const configFile = join(b, ".teammem", "config.json");
    const config = JSON.parse(await readFile(configFile, "utf8"));
    await writeFile(configFile, JSON.stringify({ ...config, merge: [{ pattern: "MEMORY.md", policy: "conflict" }] }));
    await shared(clients, "MEMORY.md", MEMORY);
    await write(a, "MEMORY.md", MEMORY + "- alice\n");
    await write(b, "MEMORY.md", MEMORY + "- bob\n");
    await sync(a, envA);
    await sync(b, envB);
    expect(await read(b, "MEMORY.md")).toBe(MEMORY + "<<<<<<< yours (local)\n- bob\n||||||| base v1\n=======\n- alice\n>>>>>>> alice (v2)\n");

    await writeFile(configFile, JSON.stringify({ ...config, merge: [{ pattern: "*.md", policy: "theirs" }] }));
    const bad = await sync(b, envB);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("config.json is unreadable: merge.0.policy");
  });
});
