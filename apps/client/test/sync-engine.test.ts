/** The sync engine called directly (no CLI), for what the CLI's defaults make slow to reach: paging. */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createApi } from "../src/http/api.js";
import { loadConfig } from "../src/state/config.js";
import { layoutOf } from "../src/state/layout.js";
import { loadReports } from "../src/state/reports.js";
import { loadSyncState } from "../src/state/sync-state.js";
import { sync } from "../src/sync/sync.js";
import { teammem, tempDir } from "./support/cli.js";
import { startTestServer } from "./support/server.js";

async function engineSync(dir: string, token: string, pullPageSize: number) {
  const layout = layoutOf(dir);
  const config = (await loadConfig(layout))!;
  return sync({
    layout,
    config,
    api: createApi({ server: config.server, namespace: config.namespace, token }),
    state: await loadSyncState(layout),
    reports: await loadReports(layout),
    warn: () => undefined,
    batchSize: 3,
    pullPageSize,
  });
}

describe("sync engine", () => {
  it("pulls page after page until the server has no more, and stores the last cursor", async () => {
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const token = await server.token("dana");
    const [a, b] = [join(root.path, "a"), join(root.path, "b")];
    for (const dir of [a, b]) await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "paged", "--token", token]);
    await mkdir(join(a, "team", "many"), { recursive: true });
    for (let i = 0; i < 7; i++) await writeFile(join(a, "team", "many", `n${i}.md`), `note ${i}\n`);
    const pushed = await engineSync(a, token, 2);
    expect(pushed.pushed.applied).toHaveLength(7);
    expect(pushed.error).toBeUndefined();

    const pulled = await engineSync(b, token, 2);
    expect(pulled.pulled.changes).toBe(7);
    expect((await readdir(join(b, "team", "many"))).sort()).toEqual(["n0.md", "n1.md", "n2.md", "n3.md", "n4.md", "n5.md", "n6.md"]);
    expect(pulled.cursor).toBe(7); // one cursor per applied operation
    expect((await loadSyncState(layoutOf(b))).cursor).toBe(7);
    const again = await engineSync(b, token, 2);
    expect(again.pulled.changes).toBe(0);
    expect(again.cursor).toBe(7);
  });
});
