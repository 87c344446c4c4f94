/**
 * Every reply is bounded (try15 F11): a server (proxy, captive portal) that answers 200 and then
 * keeps sending, sends more than any teammem reply, or trickles its body is abandoned with
 * `protocol_error` / `network_error`, and what was queued stays queued. Real node:http servers.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { NetworkError, ProtocolError, ServerError } from "../errors.js";
import { run } from "../program.js";
import { createApi, MAX_REPLY_BYTES } from "./api.js";

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** `status` (200) application/json, then `{"changes":[` and `{"a":1},` until the client hangs up (the try-out's repro). */
const endless =
  (status: number): Answer =>
  (req, res) => {
  req.resume();
  res.writeHead(status, { "content-type": "application/json" });
  res.write('{"changes":[');
  const chunk = '{"a":1},'.repeat(8192);
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once("drain", pump);
  };
  res.on("close", () => res.removeAllListeners("drain"));
  pump();
};
const forever = endless(200);

/** 200 application/json, then one byte every 50 ms, forever. */
const trickle: Answer = (req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "application/json" });
  const timer = setInterval(() => res.write(" "), 50);
  res.on("close", () => clearInterval(timer));
};

async function serve(answer: Answer): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

async function teammem(argv: string[]) {
  const out = { code: 0, stdout: "", stderr: "" };
  out.code = await run(argv, {}, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) }, tmpdir());
  return out;
}

describe("the client bounds every server reply", () => {
  it("stops reading a 200 reply that never ends once it passes the bound, with protocol_error", async () => {
    const { url } = await serve(forever);
    const err = await createApi({ server: url, namespace: "ns", token: "t", retry: { limit: 0 }, maxReplyBytes: 1024 * 1024 })
      .changes(0, 10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err).toMatchObject({ code: "protocol_error" });
    expect((err as Error).message).toBe(
      `server ${url} sent an unexpected reply to GET changes: over 1048576 bytes, more than any teammem reply; stopped reading (is it a teammem server of this version?)`,
    );
  }, 60_000);

  it("stops reading a finite body over the bound as soon as it passes it", async () => {
    const { url } = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ changes: [{ content: "x".repeat(5000) }] }));
    });
    const api = createApi({ server: url, namespace: "ns", token: "t", retry: { limit: 0 }, maxReplyBytes: 4096 });
    await expect(api.changes(0, 10)).rejects.toMatchObject({ code: "protocol_error", message: expect.stringContaining("over 4096 bytes") });
  });

  it("gives up on a body still trickling at the deadline (headers + body), with network_error", async () => {
    const { url, requests } = await serve(trickle);
    const err = await createApi({ server: url, namespace: "ns", token: "t", timeoutMs: 500, replyDeadlineMs: 1_000, retry: { limit: 2, maxDelayMs: 100 } })
      .changes(0, 10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(`cannot reach server ${url}: the reply to GET changes was not complete within 1000 ms; stopped reading`);
    expect(requests()).toBe(1); // a timed-out attempt is not retried
  }, 60_000);

  it("stops reading an error reply that never ends; its status decides the code", async () => {
    const { url, requests } = await serve(endless(400));
    const err = await createApi({ server: url, namespace: "ns", token: "t", retry: { limit: 2, maxDelayMs: 100 } })
      .changes(0, 10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 400, code: "invalid_request", serverMessage: "HTTP 400 Bad Request" });
    expect(requests()).toBe(1);
  }, 60_000);

  it("init stops reading a 200 that never ends and says the server is not a teammem server", async () => {
    const { url } = await serve(forever);
    const dir = await mkdtemp(join(tmpdir(), "teammem-replylimit-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const r = await teammem(["init", "--dir", dir, "--server", url, "--namespace", "acme", "--token", "some-token"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${url} answered, but not as a teammem server (GET /v1/team/whoami: HTTP 200, application/json)`);
  }, 60_000);

  it("push and sync against a server that streams forever exit 1 with protocol_error and keep the edit queued", async () => {
    // Server info and scan policy (push and sync go on without) refused 404, an empty namespace's
    // heads (the first sync's reconciliation), every other reply endless.
    const SERVER = { id: "00000000-0000-4000-8000-000000000001", epoch: "00000000-0000-4000-8000-000000000002" };
    const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const { url } = await serve((req, res) => {
      if (/^\/v1\/(server|team\/scan-policy)$/.test(req.url ?? "")) return json(res, 404, { code: "not_found", message: "not here" });
      if (req.url?.includes("/heads?")) return json(res, 200, { heads: [], nextAfter: null, cursor: 0, server: SERVER });
      forever(req, res);
    });
    const dir = await mkdtemp(join(tmpdir(), "teammem-replylimit-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    expect((await teammem(["init", "--dir", dir, "--server", url, "--offline", "--namespace", "acme", "--token", "some-token"])).code).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "an edit\n");
    // push queues the edit, then sends it; sync pulls first. Both meet the endless reply.
    for (const argv of [["push", "team/a.md"], ["sync"]]) {
      const r = await teammem([...argv, "--dir", dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`over ${MAX_REPLY_BYTES} bytes, more than any teammem reply; stopped reading[^\\n]* \\[protocol_error\\]\\n$`));
      const status = await teammem(["status", "--dir", dir, "--json", "--offline"]);
      expect(JSON.parse(status.stdout).pending).toEqual([expect.objectContaining({ path: "team/a.md", kind: "put" })]);
    }
  }, 180_000);
});
