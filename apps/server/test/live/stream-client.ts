/**
 * A change-stream client for tests: a real `ws` socket to a listening server, every server message
 * parsed with the protocol's schema, and promises for the HTTP refusal, the close and the next
 * message of a kind.
 */
import { STREAM_SUBPROTOCOL, streamPath, StreamServerMessage, type ServerRef } from "@teammem/protocol";
import { WebSocket, type ClientOptions } from "ws";

export interface StreamClient {
  ws: WebSocket;
  /** Every message received so far, in order. */
  messages: StreamServerMessage[];
  /** Resolves once the socket is open (101), rejects with the HTTP status of a refusal. */
  opened: Promise<void>;
  /** Resolves with the HTTP status and body when the server refused the upgrade. */
  refused: Promise<{ status: number; body: string }>;
  closed: Promise<{ code: number; reason: string }>;
  subscribe(cursor: number, server?: ServerRef): void;
  /** Waits for a message matching `pred` (among those already received too). */
  waitFor<T extends StreamServerMessage>(pred: (m: StreamServerMessage) => m is T): Promise<T>;
  /** Waits until `pred()` holds, checked after each message. */
  until(pred: () => boolean): Promise<void>;
  /** Cursors of the change messages received, in order. */
  cursors(): number[];
}

export interface OpenOptions {
  token?: string;
  /** Send the token as the `teammem.bearer.<token>` subprotocol instead of the header. */
  tokenIn?: "header" | "subprotocol";
  headers?: Record<string, string>;
  ws?: ClientOptions;
}

/** Opens the stream of `namespace` on the server at `baseUrl` (http://host:port). */
export function openStream(baseUrl: string, namespace: string, opts: OpenOptions = {}): StreamClient {
  const url = baseUrl.replace(/^http/, "ws") + streamPath(namespace);
  const protocols = [STREAM_SUBPROTOCOL];
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) {
    if (opts.tokenIn === "subprotocol") protocols.push(`teammem.bearer.${opts.token}`);
    else headers.authorization = `Bearer ${opts.token}`;
  }
  const ws = new WebSocket(url, protocols, { headers, ...opts.ws });
  const messages: StreamServerMessage[] = [];
  const waiters = new Set<() => void>();
  let onRefused!: (r: { status: number; body: string }) => void;
  const refused = new Promise<{ status: number; body: string }>((resolve) => (onRefused = resolve));
  const opened = new Promise<void>((resolve, reject) => {
    ws.on("open", () => resolve());
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => onRefused({ status: res.statusCode ?? 0, body }));
      reject(new Error(`refused with HTTP ${res.statusCode}`));
    });
    ws.on("error", (err) => reject(err));
  });
  opened.catch(() => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on("message", (data) => {
    messages.push(StreamServerMessage.parse(JSON.parse(String(data))));
    for (const w of [...waiters]) w();
  });
  ws.on("close", () => {
    for (const w of [...waiters]) w();
  });
  const until = (pred: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pred()) {
          waiters.delete(check);
          resolve();
        } else if (ws.readyState === ws.CLOSED) {
          waiters.delete(check);
          reject(new Error(`stream closed before the condition held; got ${JSON.stringify(messages.map((m) => (m.type === "change" ? m.change.cursor : m)))}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    ws,
    messages,
    opened,
    refused,
    closed,
    subscribe: (cursor, server) => {
      const send = () => ws.send(JSON.stringify({ type: "subscribe", protocolVersion: 1, cursor, ...(server ? { server } : {}) }));
      if (ws.readyState === ws.CONNECTING) ws.once("open", send);
      else send();
    },
    waitFor: async <T extends StreamServerMessage>(pred: (m: StreamServerMessage) => m is T) => {
      await until(() => messages.some(pred));
      return messages.find(pred) as T;
    },
    until,
    cursors: () => messages.flatMap((m) => (m.type === "change" ? [m.change.cursor] : [])),
  };
}

export const isType =
  <K extends StreamServerMessage["type"]>(type: K) =>
  (m: StreamServerMessage): m is Extract<StreamServerMessage, { type: K }> =>
    m.type === type;
