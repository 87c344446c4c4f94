/**
 * {@link StreamConnection.close} against a server that accepted the stream and went silent (answers
 * no close frame): the socket is destroyed within {@link CLOSE_TIMEOUT_MS}, not ws's 30 s, so a
 * stopping `teammem watch` does not stay alive on it (try20 F3). A real socket: an HTTP server that
 * completes the WebSocket upgrade by hand, then reads everything and answers nothing.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { Duplex } from "node:stream";
import { describe, expect, it, onTestFinished } from "vitest";
import { STREAM_SUBPROTOCOL } from "@teammem/protocol";
import { CLOSE_TIMEOUT_MS, StreamConnection, type StreamEnd } from "./stream-client.js";

/** A server whose upgrades succeed and then hear nothing back: `ended()` resolves when the client's side of a connection ends. */
async function silentStreamServer(): Promise<{ url: string; upgraded: Promise<void>; ended: Promise<void> }> {
  const sockets: Duplex[] = [];
  let upgradedNow!: () => void;
  let endedNow!: () => void;
  const upgraded = new Promise<void>((r) => (upgradedNow = r));
  const ended = new Promise<void>((r) => (endedNow = r));
  const server = createServer();
  server.on("upgrade", (request, socket) => {
    sockets.push(socket);
    const accept = createHash("sha1").update(`${request.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${STREAM_SUBPROTOCOL}\r\n\r\n`,
    );
    socket.on("data", () => undefined); // the subscribe, the close frame: never answered
    socket.on("error", () => undefined);
    socket.on("end", endedNow); // the client closed its side (FIN): its socket is destroyed
    socket.on("close", endedNow);
    upgradedNow();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, upgraded, ended };
}

describe("StreamConnection.close", () => {
  it("destroys the socket of a server that answers no close frame within the close timeout, not ws's 30 s", async () => {
    const server = await silentStreamServer();
    const ends: StreamEnd[] = [];
    const stream = new StreamConnection({ server: server.url, namespace: "acme", token: "t", cursor: 0, serverRef: undefined, onMessage: () => undefined, onEnd: (e) => ends.push(e) });
    await server.upgraded;
    await new Promise((r) => setTimeout(r, 200)); // the client has the 101: the connection is open
    const closedAt = performance.now();
    stream.close();
    expect(ends).toEqual([{ kind: "stopped" }]);
    const waited = await Promise.race([server.ended.then(() => performance.now() - closedAt), new Promise<"not ended">((r) => setTimeout(() => r("not ended"), 20_000))]);
    expect(waited).not.toBe("not ended");
    expect(waited).toBeLessThan(CLOSE_TIMEOUT_MS + 8_000);
  }, 30_000);
});
