/**
 * try21 F3: an operation that may have reached the server is never rewritten. A sync whose batch the
 * server applied but whose reply never came back (killed, Ctrl-C, a hook timeout, a cut connection),
 * then an edit (or a delete) of the file, then a sync: the queued operation is replayed as it was
 * (the server answers its stored result) and the edit leaves as a new operation on top of it,
 * instead of being refused `op_id_reused` for good. Also heals folders left in that state by
 * older clients.
 */
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NetworkError } from "@teammem/client";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { versionsOf } from "../support/server.js";

/** A sync whose batches the server applies but whose replies are lost (the connection drops after the server stored them). */
function lostReplies(dir: string, token: string) {
  return engineSync(dir, token, {
    wrap: (api) => ({
      ...api,
      batch: async (request) => {
        await api.batch(request);
        throw new NetworkError(api.server, "ECONNRESET");
      },
    }),
  });
}

/** The outbox entries of `dir`, parsed. */
async function outbox(dir: string): Promise<{ operation: Record<string, unknown> }[]> {
  const folder = join(dir, ".teammem", "outbox");
  const names = (await readdir(folder)).filter((n) => n.endsWith(".json")).sort();
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(folder, n), "utf8"))));
}

describe.each(DATABASE_KINDS)("an operation applied by the server but never acknowledged, on %s (try21 F3)", (kind) => {
  it("is replayed as it was, and the file's later edit leaves as a new version: nothing rejected, each operation in history once", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "line r0\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    await writeFile(join(a, "team", "notes.md"), "line r1\n");
    const cut = await lostReplies(a, envA.TEAMMEM_TOKEN!);
    expect(cut.error).toBeInstanceOf(NetworkError);
    expect((await status(a)).pending).toHaveLength(1);
    expect((await versionsOf(server.database, "notes.md")).map((v) => v.content)).toEqual(["line r0\n", "line r1\n"]);

    await writeFile(join(a, "team", "notes.md"), "line r2\n"); // the user keeps editing
    const next = await sync(a, envA);
    expect(next.stderr).not.toContain("rejected");
    expect(next.code).toBe(0);
    const st = await status(a);
    expect(st.rejected).toEqual([]);
    expect(st.pending).toEqual([]);
    expect(await readFile(join(a, "team", "notes.md"), "utf8")).toBe("line r2\n");
    expect((await versionsOf(server.database, "notes.md")).map((v) => v.content)).toEqual(["line r0\n", "line r1\n", "line r2\n"]);

    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("line r2\n");
    expect((await sync(a, envA)).stdout).toContain("pushed: 0 applied");
  });

  it("without a pull (teammem push, the agents' hook): the replay moves the base and the edit follows as a new version in the same push", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "line r0\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "notes.md"), "line r1\n");
    expect((await lostReplies(a, envA.TEAMMEM_TOKEN!)).error).toBeInstanceOf(NetworkError);
    await writeFile(join(a, "team", "notes.md"), "line r2\n");
    const pushed = await teammem(["push", "team/notes.md", "--dir", a], envA);
    expect(pushed.stderr).not.toContain("rejected");
    expect(pushed.code).toBe(0);
    expect((await status(a)).rejected).toEqual([]);
    expect((await status(a)).pending).toEqual([]);
    expect((await versionsOf(server.database, "notes.md")).map((v) => v.content)).toEqual(["line r0\n", "line r1\n", "line r2\n"]);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("line r2\n");
  });

  it("is replayed as it was when the file was deleted since, and the delete leaves as a new operation", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "line r0\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    await writeFile(join(a, "team", "notes.md"), "line r1\n");
    expect((await lostReplies(a, envA.TEAMMEM_TOKEN!)).error).toBeInstanceOf(NetworkError);
    await rm(join(a, "team", "notes.md"));
    const next = await sync(a, envA);
    expect(next.stderr).not.toContain("rejected");
    expect(next.code).toBe(0);
    const st = await status(a);
    expect(st.rejected).toEqual([]);
    expect(st.pending).toEqual([]);
    expect((await versionsOf(server.database, "notes.md")).map((v) => [v.kind, v.content])).toEqual([
      ["write", "line r0\n"],
      ["write", "line r1\n"],
      ["delete", null],
    ]);
    expect((await sync(b, envB)).code).toBe(0);
    await expect(readFile(join(b, "team", "notes.md"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("without a pull, a create whose file was deleted since: the replay, then the delete as a new operation, in the same push (try22 T2)", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "a3.md"), "created3\n");
    expect((await lostReplies(a, envA.TEAMMEM_TOKEN!)).error).toBeInstanceOf(NetworkError);
    expect((await versionsOf(server.database, "a3.md")).map((v) => v.content)).toEqual(["created3\n"]);
    await rm(join(a, "team", "a3.md"));
    const pushed = await teammem(["push", "team/a3.md", "--dir", a], envA);
    expect(pushed.stderr).not.toContain("rejected");
    expect(pushed.code).toBe(0);
    // Both operations reported: the replayed create and the delete.
    expect(pushed.stdout.match(/pushed team\/a3\.md: applied/g)).toHaveLength(2);
    const st = await status(a);
    expect(st.rejected).toEqual([]);
    expect(st.pending).toEqual([]);
    expect(await outbox(a)).toEqual([]);
    expect((await versionsOf(server.database, "a3.md")).map((v) => [v.kind, v.content])).toEqual([
      ["write", "created3\n"],
      ["delete", null],
    ]);
    expect((await sync(b, envB)).code).toBe(0);
    await expect(readFile(join(b, "team", "a3.md"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("heals an outbox an older client rewrote under the same opId after the send: the rewrite is sent as a new operation", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "line r0\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "notes.md"), "line r1\n");
    expect((await lostReplies(a, envA.TEAMMEM_TOKEN!)).error).toBeInstanceOf(NetworkError);
    await writeFile(join(a, "team", "notes.md"), "line r2\n");
    // What an older client did at send time: the queued put rewritten with the new content, same opId, no mark.
    const folder = join(a, ".teammem", "outbox");
    const [name] = (await readdir(folder)).filter((n) => n.endsWith(".json"));
    const entry = JSON.parse(await readFile(join(folder, name!), "utf8"));
    const { sha256Hex } = await import("@teammem/protocol");
    const { sendsLogged, ...older } = entry;
    expect(sendsLogged).toBe(true);
    await writeFile(join(folder, name!), JSON.stringify({ ...older, operation: { ...entry.operation, content: "line r2\n" }, sha256: sha256Hex("line r2\n") }));
    await rm(join(a, ".teammem", "outbox-sent.log"));

    const next = await sync(a, envA);
    expect(next.stderr).not.toContain("rejected");
    expect(next.code).toBe(0);
    expect((await status(a)).rejected).toEqual([]);
    expect((await status(a)).pending).toEqual([]);
    expect((await versionsOf(server.database, "notes.md")).map((v) => v.content)).toEqual(["line r0\n", "line r1\n", "line r2\n"]);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("line r2\n");
  });

  it("heals a folder an older client left with the edit rejected op_id_reused: the edit is sent at the next sync", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "notes.md"), "line r0\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "notes.md"), "line r1\n");
    expect((await lostReplies(a, envA.TEAMMEM_TOKEN!)).error).toBeInstanceOf(NetworkError);
    await writeFile(join(a, "team", "notes.md"), "line r2\n");
    // The state try21 F3 left: the rewritten operation refused, out of the outbox, recorded as rejected.
    const [queued] = await outbox(a);
    const opId = String(queued!.operation["opId"]);
    await rm(join(a, ".teammem", "outbox"), { recursive: true });
    await rm(join(a, ".teammem", "outbox-sent.log"));
    const { sha256Hex } = await import("@teammem/protocol");
    const message = "opId was already used for a different operation; use a new opId for each operation";
    await writeFile(
      join(a, ".teammem", "rejected.json"),
      JSON.stringify({ entries: [{ path: "notes.md", opId, sha256: sha256Hex("line r2\n"), code: "invalid_request", message, retry: false, details: { reason: "op_id_reused" } }] }),
    );
    expect((await status(a)).rejected).toHaveLength(1);

    const next = await sync(a, envA);
    expect(next.stderr).not.toContain("rejected");
    expect(next.code).toBe(0);
    expect((await status(a)).rejected).toEqual([]);
    expect((await status(a)).pending).toEqual([]);
    expect(await readFile(join(a, "team", "notes.md"), "utf8")).toBe("line r2\n");
    expect((await versionsOf(server.database, "notes.md")).map((v) => v.content)).toEqual(["line r0\n", "line r1\n", "line r2\n"]);
    expect((await sync(b, envB)).code).toBe(0);
    expect(await readFile(join(b, "team", "notes.md"), "utf8")).toBe("line r2\n");
  });
});
