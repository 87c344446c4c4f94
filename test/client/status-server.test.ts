/**
 * What `status` says about the server beyond a pending reconciliation: when the last sync finished
 * (also one that changed nothing). A real server and real client folders.
 */
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
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
});
