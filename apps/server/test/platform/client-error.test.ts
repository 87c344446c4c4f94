import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support.js";

/**
 * Sends `raw` bytes on a fresh connection (and nothing more: a partial request stays partial) and
 * resolves with everything the server wrote before it closed the connection.
 */
function rawRequest(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(raw));
    let received = "";
    socket.on("data", (d) => (received += d.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

/** A reply's status line, content type and parsed JSON body. */
function parseReply(reply: string): { status: string; contentType: string | undefined; body: Record<string, unknown> } {
  const [head, body] = reply.split("\r\n\r\n");
  const lines = head!.split("\r\n");
  const contentType = lines.find((l) => /^content-type:/i.test(l))?.split(":")[1]?.trim();
  return { status: lines[0]!, contentType, body: JSON.parse(body!) as Record<string, unknown> };
}

async function listening(server: TestServer): Promise<number> {
  await server.app.listen({ port: 0, host: "127.0.0.1" });
  return (server.app.server.address() as AddressInfo).port;
}

// A token-like value in the bad request: no reply may echo it.
const secretish = ["eyJhbGciOiJIUzI1NiJ9", "c2VjcmV0LXBhcnQ"].join(".");

describe("requests Node's HTTP parser refuses", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    port = await listening(server);
  });
  afterAll(() => server?.close());

  const malformed = [
    ["a control character in a header", `GET /v1/team/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secretish}\u0001x\r\n\r\n`],
    ["a malformed request line", "GARBAGE\r\n\r\n"],
    ["a non-numeric Content-Length", "POST /v1/admin/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
  ] as const;

  it.each(malformed)("answers %s with 400 invalid_request in the error contract, echoing nothing", async (_name, raw) => {
    const reply = await rawRequest(port, raw);
    const { status, contentType, body } = parseReply(reply);
    expect(status).toBe("HTTP/1.1 400 Bad Request");
    expect(contentType).toBe("application/json; charset=utf-8");
    expect(body).toEqual({ code: "invalid_request", message: expect.stringMatching(/^the request is not valid HTTP\/1\.1/) });
    expect(reply).not.toContain(secretish);
  });

  it("answers headers over the limit with 431 headers_too_large in the error contract, echoing nothing", async () => {
    const reply = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secretish}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    const { status, contentType, body } = parseReply(reply);
    expect(status).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(contentType).toBe("application/json; charset=utf-8");
    expect(body).toEqual({ code: "headers_too_large", message: "the request's headers are too large" });
    expect(reply).not.toContain(secretish);
  });

  it("keeps serving well-formed requests afterwards", async () => {
    const reply = await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe("a refused request pipelined behind a reply", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    // A reply whose headers and first part leave before the rest: the next request's refusal must not cut into it.
    server.app.get("/test/slow", async () =>
      Readable.from(
        (async function* () {
          yield "first part\n";
          await sleep(300);
          yield "second part\n";
        })(),
      ),
    );
    port = await listening(server);
  });
  afterAll(() => server?.close());

  /** Sends `first` on one connection, waits until the reply so far matches `seen`, sends `second`, and resolves with everything read until the server closed. */
  async function twoRequests(first: string, seen: RegExp, second: string): Promise<string> {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => (received += d.toString("utf8")));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.write(first);
    await expect.poll(() => received).toMatch(seen);
    socket.write(second);
    await closed;
    return received;
  }

  it("sends no second status line into a reply whose headers are out, and closes the connection", async () => {
    const reply = await twoRequests("GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n", /first part/, "GARBAGE\r\n\r\n");
    expect(reply.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200"]);
  });

  it("answers it with the error contract once the reply before it is finished", async () => {
    const reply = await twoRequests("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", /\}$/, "GARBAGE\r\n\r\n");
    expect(reply.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 400"]);
  });
});

describe("requests not received in time", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    // Short limits, checked often, so a stalled request is refused within a second.
    server = await startTestServer("pglite", { httpTimeouts: { headersMs: 200, requestMs: 400, checkIntervalMs: 50 } });
    port = await listening(server);
  });
  afterAll(() => server?.close());

  // The body case needs a valid token: without one the auth hook answers 401 before the body is read.
  const stalled = [
    ["headers that never end", (_token: string) => `GET /v1/team/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secretish}\r\n`],
    [
      "a body shorter than its Content-Length",
      (token: string) =>
        `POST /v1/admin/tokens HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"us`,
    ],
  ] as const;

  it.each(stalled)("answers %s with 408 request_timeout in the error contract, echoing nothing", async (_name, raw) => {
    const { token } = await server.token("acme", "ada", "admin");
    const reply = await rawRequest(port, raw(token));
    expect(reply).not.toContain(token);
    const { status, contentType, body } = parseReply(reply);
    expect(status).toBe("HTTP/1.1 408 Request Timeout");
    expect(contentType).toBe("application/json; charset=utf-8");
    expect(body).toEqual({ code: "request_timeout", message: "the request was not received in time" });
    expect(reply).not.toContain(secretish);
  });
});
