/**
 * One subscriber socket: its state, the last cursor sent to it, and the only way anything is sent
 * to it. Sends nothing it was already sent (cursors only move forward), and closes itself with 4001
 * `slow_consumer` instead of queueing past `maxBufferedBytes`.
 */
import { ERRORS, type ErrorCode, type ServerRef } from "@teammem/protocol";
import type { WebSocket } from "ws";
import type { AuthContext } from "../auth/auth-context.js";
import type { ChannelSubscriber } from "./namespace-channel.js";

export type ConnectionState = "awaiting_subscribe" | "catching_up" | "live" | "closed";

export interface ConnectionLimits {
  /** Queued outbound bytes (ws `bufferedAmount`) past which the connection is closed with 4001. */
  maxBufferedBytes: number;
  /** How long a closing socket may take to finish the close handshake before it is dropped (ms). */
  closeGraceMs: number;
}

export class StreamConnection implements ChannelSubscriber {
  readonly socket: WebSocket;
  readonly auth: AuthContext;
  readonly namespace: { id: string; name: string };
  readonly #limits: ConnectionLimits;
  readonly #onClosed: (conn: StreamConnection) => void;
  state: ConnectionState = "awaiting_subscribe";
  /** The last cursor this connection was sent (or subscribed from). */
  lastSent = 0;
  /** When anything was last sent (ms since epoch), for heartbeats. */
  lastSendAt = Date.now();
  /** Whether a pong came since the last ping. */
  alive = true;
  /** The server identity and epoch the subscription was made under. */
  server: ServerRef | null = null;

  constructor(socket: WebSocket, auth: AuthContext, namespace: { id: string; name: string }, limits: ConnectionLimits, onClosed: (conn: StreamConnection) => void) {
    this.socket = socket;
    this.auth = auth;
    this.namespace = namespace;
    this.#limits = limits;
    this.#onClosed = onClosed;
    socket.on("pong", () => (this.alive = true));
    socket.on("close", () => this.#closed());
  }

  get open(): boolean {
    return this.state !== "closed";
  }

  /**
   * Sends one message (a JSON text). @returns false when the connection is closed, or was just
   * closed with `slow_consumer` because its send buffer is over the limit.
   */
  send(frame: string): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount > this.#limits.maxBufferedBytes) {
      this.close("slow_consumer", "the connection fell behind; resume from your cursor", { frame: false });
      return false;
    }
    this.socket.send(frame);
    this.lastSendAt = Date.now();
    return true;
  }

  deliver(cursor: number, frame: string): void {
    if (cursor <= this.lastSent) return;
    if (this.send(frame)) this.lastSent = cursor;
  }

  advance(cursor: number): void {
    if (cursor > this.lastSent) this.lastSent = cursor;
  }

  /**
   * Ends the connection for `code`: an `error` frame (unless `frame: false`), then the close frame
   * with `ERRORS[code].close` and the reason `code`; the socket is dropped if the peer has not
   * finished the close handshake within `closeGraceMs`. Idempotent.
   */
  close(code: ErrorCode, message: string, opts: { frame?: boolean; details?: Record<string, unknown> } = {}): void {
    if (!this.open) return;
    this.state = "closed";
    if (opts.frame !== false && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(JSON.stringify({ type: "error", code, message, ...(opts.details ? { details: opts.details } : {}) }));
    }
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) this.socket.close(ERRORS[code].close, code);
    this.dropAfterGrace();
    this.#onClosed(this);
  }

  /** Drops the socket if it is still not closed after `closeGraceMs` (a peer that never answers the close). */
  dropAfterGrace(): void {
    const timer = setTimeout(() => this.socket.terminate(), this.#limits.closeGraceMs);
    timer.unref();
    this.socket.once("close", () => clearTimeout(timer));
  }

  #closed(): void {
    if (!this.open) return;
    this.state = "closed";
    this.#onClosed(this);
  }
}
