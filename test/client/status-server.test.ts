/**
 * What `status` says about the server beyond a pending reconciliation: when the last sync finished
 * (also one that changed nothing), and how many teammates' changes wait on the server (one page
 * asked, "more than" when it is full). A real server and two real client folders.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { teammem, tempDir } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

const statusOf = async (dir: string, env: Record<string, string>) => {
  const human = (await teammem(["status", "--dir", dir], env)).stdout;
  const json = JSON.parse((await teammem(["status", "--dir", dir, "--json"], env)).stdout);
  return { human, json };
};

describe("status and the server", () => {
  it("moves 'as of the last sync' on a sync that changed nothing (state.json not rewritten)", async () => {
    // No team files: a file's stat cache could be kept (state.json rewritten) by a later sync.
    const { a, envA } = await setup("pglite");
    expect((await sync(a, envA)).code).toBe(0);
    const first = (await statusOf(a, envA)).json.lastSyncAt;
    const stateMtime = (await stat(join(a, ".teammem", "state.json"))).mtimeMs;
    await sleep(20);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await stat(join(a, ".teammem", "state.json"))).mtimeMs).toBe(stateMtime);
    const second = (await statusOf(a, envA)).json.lastSyncAt;
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
    // A failed sync is no sync: the time stays.
    expect((await teammem(["sync", "--dir", a], { TEAMMEM_TOKEN: "not-a-token" })).code).not.toBe(0);
    expect((await statusOf(a, envA)).json.lastSyncAt).toBe(second);
  });

  it("says 'never synced' for a folder set up offline whose syncs all failed (no last-sync.json, state.json only from init)", async () => {
    const root = await tempDir();
    const dir = join(root.path, "sil");
    // A port nothing listens on any more: the connection is refused at once.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await teammem(["init", "--dir", dir, "--server", `http://127.0.0.1:${port}`, "--namespace", "acme-web", "--token", "T", "--offline"])).code).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "x\n");
    expect((await teammem(["sync", "--dir", dir])).code).not.toBe(0);
    const { human, json } = await statusOf(dir, {});
    expect(json.lastSyncAt).toBeNull();
    expect(human).toMatch(/^server not reached: .+; never synced:$/m);
    expect(human).not.toContain("as of the last sync");
    expect((await teammem(["status", "--dir", dir, "--offline"])).stdout).not.toContain("as of the last sync");
    await root.remove();
  });

  it("counts a teammate's changes waiting on the server, leaves out this folder's own, and says 'more than' a full page", async () => {
    const { a, b, envA, envB } = await setup("pglite");
    for (const name of ["one", "two", "three"]) await writeFile(join(a, "team", `${name}.md`), `${name}\n`);
    expect((await sync(a, envA)).code).toBe(0);

    const own = await statusOf(a, envA);
    expect(own.json.serverCheck).toEqual({ checked: true, reachable: true, reconcilePending: false, waiting: { changes: 0, more: false } });
    expect(own.human).toContain("everything synced");

    const teammate = await statusOf(b, envB);
    expect(teammate.json.serverCheck.waiting).toEqual({ changes: 3, more: false });
    expect(teammate.human).toContain("\n3 changes waiting on the server (run teammem sync)\n");
    expect(teammate.human).not.toContain("everything synced");

    for (let i = 0; i < 22; i++) await writeFile(join(a, "team", `n${i}.md`), `${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    const many = await statusOf(b, envB);
    expect(many.json.serverCheck.waiting).toEqual({ changes: 20, more: true });
    expect(many.human).toContain("\nmore than 20 changes waiting on the server (run teammem sync)\n");

    expect((await sync(b, envB)).code).toBe(0);
    const synced = await statusOf(b, envB);
    expect(synced.json.serverCheck.waiting).toEqual({ changes: 0, more: false });
    expect(synced.human).toContain("everything synced");

    // A pull cut short (try20 F2: a full disk) holds files past its saved cursor: here B holds
    // changes 1-25 with its cursor put back to 8, and A made 5 more. The page (changes 9-28) holds
    // 17 B has: its count of 3 is no total, and the line no longer shrinks as a pull progresses.
    for (let i = 0; i < 5; i++) await writeFile(join(a, "team", `m${i}.md`), `${i}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    const stateFile = join(b, ".teammem", "state.json");
    const state = JSON.parse(await readFile(stateFile, "utf8")) as { cursor: number };
    expect(state.cursor).toBe(25);
    await writeFile(stateFile, JSON.stringify({ ...state, cursor: 8 }));
    const cut = await statusOf(b, envB);
    expect(cut.json.serverCheck.waiting).toEqual({ changes: 3, more: true });
    expect(cut.human).toContain("\nmore than 20 changes waiting on the server (run teammem sync)\n");
  });
});
