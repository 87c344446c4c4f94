/**
 * A sync whose reply takes longer than the command lock's stale threshold (30 s) keeps its lock
 * (try20 F1): the lock folder's mtime is refreshed all along, and the run ends with the reply
 * deadline's network_error, the change queued, not with "the lock ... was lost" (the holder record
 * used to live in the lock folder and changed its mtime, so the lock counted as lost at the first
 * refresh, 15 s in). A real trickling server (headers at once, then one body byte a second) and a
 * reply deadline of 35 s through `createApi`'s option (the command's is 120 s).
 */
import { existsSync } from "node:fs";
import { stat, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { createApi, layoutOf, NetworkError, syncFolder } from "@teammem/client";
import { teammem, tempDir } from "../support/cli.js";

/** Past the lock's stale threshold (30 s) and two of its refreshes (every 15 s). */
const REPLY_DEADLINE_MS = 35_000;

/** An HTTP server on 127.0.0.1 answering every request 200 with its headers, then one body byte a second. */
async function tricklingServer(): Promise<string> {
  const replies = new Set<ServerResponse>();
  const server = createServer((_request, response) => {
    replies.add(response);
    response.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
    response.write('{"a":"');
    const drip = setInterval(() => response.write("x"), 1000);
    response.on("close", () => (clearInterval(drip), replies.delete(response)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const r of replies) r.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe("a sync whose reply takes longer than the lock's stale threshold", () => {
  it("keeps the command lock (refreshed) until the reply deadline, then fails with network_error and the change queued", async () => {
    const server = await tricklingServer();
    const root = await tempDir();
    onTestFinished(root.remove);
    const dir = join(root.path, "m");
    const token = ["some", "token"].join("-");
    expect((await teammem(["init", "--dir", dir, "--server", server, "--namespace", "acme", "--offline", "--token", token])).code).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "an edit\n");
    const lock = join(dir, ".teammem", "command.lock");

    const api = createApi({ server, namespace: "acme", token, replyDeadlineMs: REPLY_DEADLINE_MS, retry: { limit: 0 } });
    const run = syncFolder(layoutOf(dir), { token, api });
    await sleep(32_000); // past the stale threshold: the lock is still there, and fresh
    expect(Date.now() - (await stat(lock)).mtimeMs).toBeLessThan(20_000);

    const summary = await run; // no 'lock ... was lost' thrown at release
    expect(summary.error).toBeInstanceOf(NetworkError);
    expect(summary.error?.message).toContain(`the reply to GET server was not complete within ${REPLY_DEADLINE_MS} ms`);
    expect(summary.pending).toBe(1);
    expect(existsSync(lock)).toBe(false);
  }, 90_000);
});
