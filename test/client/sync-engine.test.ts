/** The sync engine called directly (no CLI), for what the CLI's defaults make slow to reach: paging. */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { NetworkError } from "@teammem/client";
import { teammem, tempDir } from "../support/cli.js";
import { status } from "../support/clients.js";
import { engineSync } from "../support/engine.js";
import { startTestServer } from "../support/server.js";

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
    const pushed = await engineSync(a, token, { batchSize: 3, pullPageSize: 2 });
    expect(pushed.pushed.applied).toHaveLength(7);
    expect(pushed.error).toBeUndefined();

    const pulled = await engineSync(b, token, { batchSize: 3, pullPageSize: 2 });
    expect(pulled.pulled.changes).toBe(7);
    expect((await readdir(join(b, "team", "many"))).sort()).toEqual(["n0.md", "n1.md", "n2.md", "n3.md", "n4.md", "n5.md", "n6.md"]);
    expect(pulled.cursor).toBe(7); // one cursor per applied operation
    expect((await status(b)).cursor).toBe(7);
    const again = await engineSync(b, token, { batchSize: 3, pullPageSize: 2 });
    expect(again.pulled.changes).toBe(0);
    expect(again.cursor).toBe(7);
  });

  it("counts what the server acknowledged before it went away mid-push, and leaves only the rest queued", async () => {
    const server = await startTestServer("pglite");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const token = await server.token("dana");
    const dir = join(root.path, "a");
    await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "killed", "--token", token]);
    for (let i = 0; i < 10; i++) await writeFile(join(dir, "team", `n${i}.md`), `note ${i}\n`);
    let batches = 0;
    // The real server stops (its socket closes) just before the third batch of 3.
    const summary = await engineSync(dir, token, { batchSize: 3, wrap: (api) => ({
      ...api,
      batch: async (request) => {
        if (++batches === 3) await server.stop();
        return api.batch(request);
      },
    }) });
    expect(summary.error).toBeInstanceOf(NetworkError);
    expect(summary.pushed.applied).toHaveLength(6);
    expect(summary.pending).toBe(4);
    expect((await status(dir)).pending).toHaveLength(4);
    await server.start();
    const rest = await engineSync(dir, token, { batchSize: 3 });
    expect(rest.error).toBeUndefined();
    expect(rest.pushed.applied).toHaveLength(4);
  });
});
