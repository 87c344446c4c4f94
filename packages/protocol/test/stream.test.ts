import { describe, expect, it } from "vitest";
import { bearerSubprotocol, streamPath, StreamClientMessage, StreamServerMessage, STREAM_SUBPROTOCOL } from "../src/index.js";

const server = { id: "6f1c2b7e-3c1d-4f5e-9a7b-2d3e4f5a6b7c", epoch: "0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f" };

describe("stream messages", () => {
  it("puts the namespace in the route as one percent-encoded segment", () => {
    expect(streamPath("acme/web")).toBe("/v1/namespaces/acme%2Fweb/stream");
  });

  it("carries the token in a subprotocol beside the stream's own", () => {
    expect(bearerSubprotocol("a.b.c")).toBe("teammem.bearer.a.b.c");
    expect(STREAM_SUBPROTOCOL).toBe("teammem.stream.v1");
  });

  it("accepts a subscribe with a cursor and the server it came from, or cursor 0 alone", () => {
    expect(StreamClientMessage.safeParse({ type: "subscribe", protocolVersion: 1, cursor: 12, server }).success).toBe(true);
    expect(StreamClientMessage.safeParse({ type: "subscribe", protocolVersion: 1, cursor: 0 }).success).toBe(true);
  });

  it.each([
    ["an unknown type", { type: "pull", protocolVersion: 1, cursor: 0 }],
    ["another protocol version", { type: "subscribe", protocolVersion: 2, cursor: 0 }],
    ["a negative cursor", { type: "subscribe", protocolVersion: 1, cursor: -1 }],
    ["a fractional cursor", { type: "subscribe", protocolVersion: 1, cursor: 1.5 }],
    ["an unknown field", { type: "subscribe", protocolVersion: 1, cursor: 0, token: "x" }],
    ["a server that is not {id, epoch}", { type: "subscribe", protocolVersion: 1, cursor: 3, server: { id: "x", epoch: "y" } }],
  ])("refuses a client message with %s", (_name, message) => {
    expect(StreamClientMessage.safeParse(message).success).toBe(false);
  });

  it("reads every kind of server message", () => {
    const change = {
      path: "team/a.md", version: 2, deleted: false, sha256: "a".repeat(64), size: 3, content: "abc", cursor: 7,
      author: "alice", createdAt: "2026-01-01T00:00:00.000Z",
    };
    const messages = [
      { type: "subscribed", namespace: "acme/web", cursor: 0, headCursor: 7, server, maxInlineBytes: 65536, heartbeatMs: 15000 },
      { type: "change", change, contentOmitted: false },
      { type: "change", change: { ...change, content: null }, contentOmitted: true },
      { type: "caught_up", cursor: 7 },
      { type: "heartbeat", cursor: 7 },
      { type: "error", code: "stale_cursor", message: "reconcile", details: { cursor: 7, server } },
    ];
    for (const m of messages) expect(StreamServerMessage.parse(m)).toEqual(m);
  });
});
