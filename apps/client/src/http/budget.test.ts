/**
 * A hook's every request ends within the hook's time budget (try16 F6: the SessionStart hook ran
 * 124 s against a server trickling its reply, its per-request reply deadline being 120 s, while
 * Claude Code kills it at 30 s, lock held). Real node:http servers that send headers, then a byte
 * every 50 ms forever.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, onTestFinished } from "vitest";
import { NetworkError } from "../errors.js";
import { hookApi } from "../hooks/hook-run.js";
import { run } from "../program.js";
import { requireConfig } from "../state/config.js";
import { layoutOf } from "../state/layout.js";
import { outboxSize } from "../state/outbox.js";
import { syncFolder } from "../sync/sync-folder.js";
import { createApi, refuseCredentialInRequest } from "./api.js";

const trickle = (req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  res.writeHead(200, { "content-type": "application/json" });
  const timer = setInterval(() => res.write(" "), 50);
  res.on("close", () => clearInterval(timer));
};

async function serve(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    trickle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe("a time budget bounds every request of a client", () => {
  it("cuts off a trickling reply when the budget runs out, though its own deadlines are far longer, and sends nothing after", async () => {
    const { url, requests } = await serve();
    refuseCredentialInRequest(url, `${url}/warm-up`); // the scanner's first run (rule set built) is not the reply's time
    const api = createApi({ server: url, namespace: "ns", token: "t", timeoutMs: 30_000, replyDeadlineMs: 120_000, budgetMs: 3_000 });
    // 3 s, not 1: at load ~25 the first request was not yet sent when 1 s had gone (citime, 2026-12-03).
    const started = performance.now();
    const err = await api.changes(0, 10).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(30_000); // 3 s budget; the reply deadline is 120 s
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(`cannot reach server ${url}: this run's time budget of 3000 ms ran out waiting for the reply to GET changes; stopped waiting`);
    await expect(api.heads(undefined, 10)).rejects.toMatchObject({
      code: "network_error",
      message: `cannot reach server ${url}: this run's time budget of 3000 ms is spent; GET heads not sent`,
    });
    expect(requests()).toBe(1);
  }, 60_000);

  it("holds through garbage collections while the request waits (nodejs/undici#4068: ky's cloned Request dropped the budget's signal)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { url } = await serve();
    refuseCredentialInRequest(url, `${url}/warm-up`);
    const api = createApi({ server: url, namespace: "ns", token: "t", timeoutMs: 30_000, replyDeadlineMs: 120_000, budgetMs: 1_000 });
    const collections = setInterval(gc, 20);
    onTestFinished(() => clearInterval(collections));
    const started = performance.now();
    const err = await api.changes(0, 10).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(20_000); // budget 1 s; before: 30 s (the first answer's wait) or 120 s
    expect((err as Error).message).toMatch(/time budget of 1000 ms ran out waiting for the reply to GET changes/);
  }, 60_000);

  it("a hook's sync against a trickling server ends within its budget, says so, and keeps the edit queued", async () => {
    const { url } = await serve();
    const dir = await mkdtemp(join(tmpdir(), "teammem-budget-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const io = { stdout: () => undefined, stderr: () => undefined };
    expect(await run(["init", "--dir", dir, "--server", url, "--offline", "--namespace", "acme", "--token", "some-token"], {}, io, tmpdir())).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "an edit\n");
    const layout = layoutOf(dir);
    const config = await requireConfig(layout);
    const started = performance.now();
    const summary = await syncFolder(layout, { config, token: "some-token", api: hookApi(config, "some-token", 2_000) });
    expect(performance.now() - started).toBeLessThan(30_000); // budget 2 s; before: 120 s per request
    expect(summary.error?.message).toMatch(/^cannot reach server \S+: this run's time budget of 2000 ms (ran out waiting for the reply to|is spent;) /);
    expect(summary.pending).toBe(1);
    expect(await outboxSize(layout)).toBe(1);
  }, 60_000);
});
