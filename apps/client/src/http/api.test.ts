/**
 * The client's HTTP calls against a real HTTP server (node:http on port 0) that answers what each
 * test scripts: refusals with and without Retry-After, proxy errors, dropped connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { ClientError, NetworkError, ServerError } from "../errors.js";
import { createApi, type ApiOptions } from "./api.js";

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const SERVER = { id: "00000000-0000-4000-8000-000000000001", epoch: "00000000-0000-4000-8000-000000000002" };
const EMPTY_CHANGES = { changes: [], nextCursor: 0, hasMore: false, server: SERVER };
const ok: Answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(EMPTY_CHANGES));
const refuse =
  (status: number, code: string, headers: Record<string, string> = {}): Answer =>
  (_req, res) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ code, message: `${code} (scripted)` }));

/** A server answering the n-th request with `answers[n]` (the last one again after that); records when each came. */
async function scriptedServer(answers: Answer[]) {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    answers[Math.min(arrivals.length, answers.length) - 1]!(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  const api = (retry: ApiOptions["retry"] = { limit: 3, maxDelayMs: 5_000 }, namespace = "ns") =>
    createApi({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace, token: "t", retry });
  return { api, arrivals };
}

describe("the client's HTTP calls", () => {
  it("wait the Retry-After of a 429 rate_limited, then succeed", async () => {
    const { api, arrivals } = await scriptedServer([refuse(429, "rate_limited", { "retry-after": "1" }), ok]);
    expect(await api().changes(0, 10)).toEqual(EMPTY_CHANGES);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(990); // waited the second it was told
  });

  it("wait a Retry-After longer than the backoff cap (try14 F12: 31 s over a 30 s cap failed a sync), saying so", async () => {
    // Scaled down: a backoff cap of 0.2 s and Retry-After 1 s stand for the 30 s cap and 31 s.
    const { api, arrivals } = await scriptedServer([refuse(429, "rate_limited", { "retry-after": "1" }), ok]);
    const waits: string[] = [];
    const client = api({ limit: 3, maxDelayMs: 200, onWait: (ms, code) => waits.push(`${code} ${ms}`) });
    expect(await client.changes(0, 10)).toEqual(EMPTY_CHANGES);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(990);
    expect(waits).toEqual(["rate_limited 1000"]);
  });

  it("retry a 503 database_busy with backoff until the server answers", async () => {
    const { api, arrivals } = await scriptedServer([refuse(503, "database_busy"), refuse(503, "server_shutting_down"), ok]);
    expect(await api().changes(0, 10)).toEqual(EMPTY_CHANGES);
    expect(arrivals).toHaveLength(3);
  });

  it("retry a POST batch too (operations carry an opId) and a proxy's bodyless 502", async () => {
    const { api, arrivals } = await scriptedServer([
      (_req, res) => res.writeHead(502).end("<html>bad gateway</html>"),
      (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: [], server: SERVER })),
    ]);
    expect(await api().batch({ clientId: "c", operations: [{ opId: "op-00000001", path: "a.md", baseVersion: 0, content: "a" }] })).toEqual({ results: [], server: SERVER });
    expect(arrivals).toHaveLength(2);
  });

  it.each([
    [400, "invalid_request"],
    [401, "token_expired"],
    [404, "not_found"],
    [409, "version_conflict"],
    [422, "secret_detected"],
  ])("send a request refused with %i %s once, and report the code", async (status, code) => {
    const { api, arrivals } = await scriptedServer([refuse(status, code)]);
    const err = await api().changes(0, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status, code, retry: false, serverMessage: `${code} (scripted)` });
    expect(arrivals).toHaveLength(1);
  });

  it("give up at once when Retry-After asks for longer than the longest wait, reporting rate_limited", async () => {
    const { api, arrivals } = await scriptedServer([refuse(429, "rate_limited", { "retry-after": "3600" })]);
    const err = await api().changes(0, 10).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "rate_limited", status: 429, retry: true });
    expect(arrivals).toHaveLength(1);
  });

  it("stop after `limit` retries of a server that stays busy, with the last refusal", async () => {
    const { api, arrivals } = await scriptedServer([refuse(503, "database_busy")]);
    const err = await api({ limit: 2, maxDelayMs: 5_000 }).changes(0, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ code: "database_busy", status: 503 });
    expect(arrivals).toHaveLength(3);
  });

  it("retry a dropped connection, then report the server as unreachable", async () => {
    const { api, arrivals } = await scriptedServer([(req) => req.socket.destroy()]);
    const err = await api({ limit: 1, maxDelayMs: 5_000 }).changes(0, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(arrivals).toHaveLength(2);
  });

  it("send each request once when retries are off", async () => {
    const { api, arrivals } = await scriptedServer([refuse(503, "database_busy")]);
    await expect(api({ limit: 0 }).changes(0, 10)).rejects.toMatchObject({ code: "database_busy" });
    expect(arrivals).toHaveLength(1);
  });

  describe("never send a credential in a URL (namespace, entry path, id): refused before any byte leaves", () => {
    const token = fakeGithubPat(11);
    const calls: [string, (api: ReturnType<typeof createApi>) => Promise<unknown>][] = [
      ["ensureNamespace", (a) => a.ensureNamespace()],
      ["changes", (a) => a.changes(0, 10)],
      ["entry", (a) => a.entry("a.md")],
      ["version", (a) => a.version("a.md", 1)],
      ["history", (a) => a.history("a.md")],
      ["openConflicts", (a) => a.openConflicts()],
      ["heads", (a) => a.heads(undefined, 10)],
      ["batch", (a) => a.batch({ clientId: "c", operations: [{ opId: "op-00000001", path: "a.md", baseVersion: 0, content: "a" }] })],
    ];
    it.each(calls)("%s with the credential in the namespace", async (_name, call) => {
      const { api, arrivals } = await scriptedServer([ok]);
      const err = await call(api(undefined, `acme/${token}`)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientError);
      expect(err).toMatchObject({ code: "secret_detected", exitCode: 1 });
      expect((err as Error).message).toContain("github-pat");
      expect((err as Error).message).not.toContain(token);
      expect(arrivals).toHaveLength(0);
    });
    it.each([
      ["restore", (a: ReturnType<typeof createApi>) => a.restore({ opId: "op-00000001", path: "a.md", version: 1, clientId: `client-${token}` })],
      ["resolveConflict", (a: ReturnType<typeof createApi>) => a.resolveConflict("c1", { opId: "op-00000001", baseVersion: 1, clientId: token, content: "x\n" })],
      ["blockReport", (a: ReturnType<typeof createApi>) => a.blockReport({ clientId: token, path: "a.md", sha256: "0".repeat(64), findings: [] })],
      ["batch", (a: ReturnType<typeof createApi>) => a.batch({ clientId: token, operations: [{ opId: "op-00000001", path: "a.md", baseVersion: 0, content: "a" }] })],
    ] as const)("%s with the credential in the client id", async (_name, call) => {
      const { api, arrivals } = await scriptedServer([ok]);
      const err = await call(api()).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "secret_detected" });
      expect((err as Error).message).toContain("client id");
      expect((err as Error).message).not.toContain(token);
      expect(arrivals).toHaveLength(0);
    });
    it.each([
      ["entry", (a: ReturnType<typeof createApi>) => a.entry(`${token}/a.md`)],
      ["version", (a: ReturnType<typeof createApi>) => a.version(`notes-${token}.md`, 1)],
      ["history", (a: ReturnType<typeof createApi>) => a.history(`${token}.md`)],
      ["heads", (a: ReturnType<typeof createApi>) => a.heads(token, 10)],
      ["bypass", (a: ReturnType<typeof createApi>) => a.bypass(token)],
    ] as const)("%s with the credential in a path or id", async (_name, call) => {
      const { api, arrivals } = await scriptedServer([ok]);
      await expect(call(api())).rejects.toMatchObject({ code: "secret_detected" });
      expect(arrivals).toHaveLength(0);
    });
  });
});
