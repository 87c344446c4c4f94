import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support.js";

/** Sends `raw` bytes on a fresh connection and resolves with everything the server wrote before closing. */
function rawRequest(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(raw));
    let received = "";
    socket.on("data", (d) => (received += d.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

describe("requests Node's HTTP parser refuses", () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    port = (server.app.server.address() as AddressInfo).port;
  });
  afterAll(() => server?.close());

  // A token-like value in the bad header: the reply must not echo it.
  const secretish = ["eyJhbGciOiJIUzI1NiJ9", "c2VjcmV0LXBhcnQ"].join(".");
  const cases = [
    ["a control character in a header", `GET /v1/team/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secretish}\u0001x\r\n\r\n`],
    ["a malformed request line", "GARBAGE\r\n\r\n"],
    ["a non-numeric Content-Length", "POST /v1/admin/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
    ["headers over the limit", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`],
  ] as const;

  it.each(cases)("answers %s with 400 invalid_request in the error contract, echoing nothing", async (_name, raw) => {
    const reply = await rawRequest(port, raw);
    const [head, body] = reply.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    const parsed = JSON.parse(body!) as { code: string; message: string };
    expect(Object.keys(parsed).sort()).toEqual(["code", "message"]);
    expect(parsed.code).toBe("invalid_request");
    expect(reply).not.toContain(secretish);
  });

  it("keeps serving well-formed requests afterwards", async () => {
    const reply = await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
  });
});
