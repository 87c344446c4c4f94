/**
 * This instance's change stream: the LISTEN connection, one {@link NamespaceChannel} per namespace
 * with subscribers here, and every open {@link StreamConnection}. Subscribing catches a connection
 * up from the change feed, then hands it to its namespace's channel with no gap and no duplicate.
 * One timer sweeps every connection (pings, heartbeats, dead peers, epoch), another re-checks
 * their tokens, a third reads the cursors of the namespaces with subscribers here and wakes the
 * channels that are behind (a notification that was never sent: live/README.md); all are stopped
 * by {@link ChangeHub.close}.
 */
import type { ServerRef, StreamSubscribe } from "@teammem/protocol";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/database.js";
import type { IdentityCache } from "../identity/identity-cache.js";
import { namespaceCursor, namespaceCursors, readChanges } from "../store/changes.js";
import { ChangeListener, type ChangeListenerOptions } from "./change-listener.js";
import { encodeChange, NamespaceChannel } from "./namespace-channel.js";
import type { StreamConnection } from "./stream-connection.js";
import { tokenVerdicts } from "./token-states.js";

export interface LiveOptions extends ChangeListenerOptions {
  /** Largest content sent inline in a `change` message (UTF-8 bytes). Default 65536. */
  maxInlineBytes: number;
  /** Ping and heartbeat period (ms): a message at least this often, a peer without pong by the next ping is closed. Default 15000. */
  heartbeatMs: number;
  /** How long after the upgrade a `subscribe` may take (ms). Default 10000. */
  subscribeTimeoutMs: number;
  /** Outbound bytes queued per connection before it is closed with 4001 `slow_consumer`. Default 4 MiB. */
  maxBufferedBytes: number;
  /** Largest inbound message (bytes); larger closes with 1009. Default 65536. */
  maxMessageBytes: number;
  /** How often open connections' tokens are re-checked for revocation and expiry (ms). Default 2000. */
  tokenCheckMs: number;
  /** How long a closing socket may take to finish the close handshake (ms). Default 5000. */
  closeGraceMs: number;
  /** Allowed `Origin` values of a stream upgrade (e.g. `https://console.example.com`); empty: any. */
  allowedOrigins: readonly string[];
  /**
   * How often the cursors of the namespaces with subscribers here are read (one query), so a
   * change whose notification was never sent (its instance ended between commit and NOTIFY)
   * still reaches them within this time (ms). Default 5000.
   */
  catchUpMs: number;
}

export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  maxInlineBytes: 64 * 1024,
  heartbeatMs: 15_000,
  subscribeTimeoutMs: 10_000,
  maxBufferedBytes: 4 * 1024 * 1024,
  maxMessageBytes: 64 * 1024,
  tokenCheckMs: 2000,
  closeGraceMs: 5000,
  allowedOrigins: [],
  catchUpMs: 5000,
  probeMs: 5000,
  minBackoffMs: 100,
  maxBackoffMs: 5000,
};

/** Most changes read per catch-up query. */
const CATCH_UP_PAGE = 200;
/** Catch-up waits for the send buffer to fall under this share of the limit before the next page. */
const CATCH_UP_LOW_WATER = 0.25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ChangeHub {
  readonly listener: ChangeListener;
  readonly options: LiveOptions;
  readonly #db: Db;
  readonly #identity: IdentityCache;
  readonly #log: FastifyBaseLogger;
  readonly #channels = new Map<string, NamespaceChannel>();
  /** Channels being created (their tail is being read): the notifications they must not miss. */
  readonly #opening = new Map<string, Promise<NamespaceChannel>>();
  readonly #connections = new Set<StreamConnection>();
  /** The channel each subscribed connection counts as a member of. */
  readonly #joined = new Map<StreamConnection, NamespaceChannel>();
  #sweepTimer: NodeJS.Timeout | null = null;
  #lastSweepAt = Date.now();
  #tokenTimer: NodeJS.Timeout | null = null;
  #checkingTokens = false;
  #cursorTimer: NodeJS.Timeout | null = null;
  #readingCursors = false;
  #closing = false;

  constructor(db: Db, identity: IdentityCache, options: LiveOptions, log: FastifyBaseLogger) {
    this.#db = db;
    this.#identity = identity;
    this.options = options;
    this.#log = log;
    this.listener = new ChangeListener(
      db,
      {
        onChange: (namespaceId, cursor) => this.#channels.get(namespaceId)?.notify(cursor),
        onResync: () => {
          for (const channel of this.#channels.values()) channel.resync();
        },
      },
      options,
      log,
    );
  }

  /** Starts listening and the timers. */
  async start(): Promise<void> {
    await this.listener.start();
    this.#sweepTimer = setInterval(() => void this.#sweep(), this.options.heartbeatMs);
    this.#sweepTimer.unref();
    this.#tokenTimer = setInterval(() => void this.#checkTokens(), this.options.tokenCheckMs);
    this.#tokenTimer.unref();
    this.#cursorTimer = setInterval(() => void this.#readCursors(), this.options.catchUpMs);
    this.#cursorTimer.unref();
  }

  /** Open connections on this instance. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Tracks a connection from its upgrade; it must subscribe within `subscribeTimeoutMs`. */
  add(conn: StreamConnection): void {
    if (this.#closing) {
      conn.close("server_shutting_down", "the server is shutting down");
      return;
    }
    this.#connections.add(conn);
    const timer = setTimeout(() => {
      if (conn.state === "awaiting_subscribe") conn.close("idle_timeout", `no subscribe within ${this.options.subscribeTimeoutMs} ms`);
    }, this.options.subscribeTimeoutMs);
    timer.unref();
    conn.socket.once("close", () => clearTimeout(timer));
  }

  /** Forgets a closed connection (its StreamConnection calls this once). */
  remove(conn: StreamConnection): void {
    this.#connections.delete(conn);
    const channel = this.#joined.get(conn);
    if (!channel) return;
    this.#joined.delete(conn);
    channel.live.delete(conn);
    this.#release(channel);
  }

  /** One subscriber fewer on `channel`; the last one closes it. */
  #release(channel: NamespaceChannel): void {
    channel.members--;
    if (channel.members > 0) return;
    channel.close();
    if (this.#channels.get(channel.namespaceId) === channel) this.#channels.delete(channel.namespaceId);
  }

  /**
   * Answers `subscribe`: checks the server identity and cursor (else 4002 `stale_cursor`), sends
   * `subscribed`, every change after the cursor, `caught_up`, and hands the connection to its
   * namespace's channel for live changes. A database failure closes with 1013 `database_busy`.
   */
  async subscribe(conn: StreamConnection, msg: StreamSubscribe): Promise<void> {
    conn.state = "catching_up";
    try {
      const { server } = await this.#identity.current();
      if (msg.cursor > 0 && !msg.server) {
        conn.close("invalid_request", "subscribe: a cursor above 0 needs the server {id, epoch} it came from");
        return;
      }
      const head = await namespaceCursor(this.#db, conn.namespace.id);
      if ((msg.server && (msg.server.id !== server.id || msg.server.epoch !== server.epoch)) || msg.cursor > head) {
        conn.close("stale_cursor", "the cursor is not valid for this server: reconcile by content hashes, then subscribe again", {
          details: { cursor: head, server },
        });
        return;
      }
      conn.server = server;
      conn.lastSent = msg.cursor;
      let channel = await this.#channel(conn.namespace.id);
      while (channel.closed) channel = await this.#channel(conn.namespace.id); // its last member left meanwhile
      channel.members++;
      if (!conn.open) {
        this.#release(channel);
        return;
      }
      this.#joined.set(conn, channel);
      const subscribed = { type: "subscribed", namespace: conn.namespace.name, cursor: msg.cursor, headCursor: head, server, maxInlineBytes: this.options.maxInlineBytes, heartbeatMs: this.options.heartbeatMs };
      if (!conn.send(JSON.stringify(subscribed))) return;
      await this.#catchUp(conn, channel);
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, "change stream: subscribe failed");
      conn.close("database_busy", "the database could not be read; reconnect and subscribe again");
    }
  }

  /**
   * Sends the feed after `conn.lastSent` page by page (waiting for the send buffer to drain between
   * pages) until the connection has everything the channel has broadcast; then, with no await in
   * between, adds it to the channel's live set: every later broadcast is after what it was sent.
   */
  async #catchUp(conn: StreamConnection, channel: NamespaceChannel): Promise<void> {
    for (;;) {
      const page = await readChanges(this.#db, conn.namespace.id, conn.lastSent, CATCH_UP_PAGE);
      if (!conn.open) return;
      if (page === "ahead") {
        conn.close("stale_cursor", "the namespace's cursor went back (database restored): reconcile by content hashes");
        return;
      }
      for (const change of page.changes) conn.deliver(change.cursor, encodeChange(change, this.options.maxInlineBytes));
      if (!conn.open) return;
      if (!page.hasMore) conn.advance(page.nextCursor);
      if (!page.hasMore && conn.lastSent >= channel.tail) {
        channel.live.add(conn);
        conn.state = "live";
        conn.send(JSON.stringify({ type: "caught_up", cursor: conn.lastSent }));
        return;
      }
      if (!(await this.#drained(conn))) return;
    }
  }

  /** Waits until `conn`'s send buffer is under the low-water mark; closes it as slow if that takes over `heartbeatMs`. */
  async #drained(conn: StreamConnection): Promise<boolean> {
    const low = this.options.maxBufferedBytes * CATCH_UP_LOW_WATER;
    const deadline = Date.now() + this.options.heartbeatMs;
    while (conn.open && conn.socket.bufferedAmount > low) {
      if (Date.now() > deadline) {
        conn.close("slow_consumer", "the connection fell behind; resume from your cursor", { frame: false });
        return false;
      }
      await sleep(10);
    }
    return conn.open;
  }

  /** The channel of `namespaceId`, created with the namespace's cursor as its tail. */
  async #channel(namespaceId: string): Promise<NamespaceChannel> {
    const existing = this.#channels.get(namespaceId);
    if (existing) return existing;
    let opening = this.#opening.get(namespaceId);
    if (!opening) {
      opening = (async () => {
        try {
          const tail = await namespaceCursor(this.#db, namespaceId);
          const channel = new NamespaceChannel({
            namespaceId,
            tail,
            db: this.#db,
            maxInlineBytes: this.options.maxInlineBytes,
            log: this.#log,
            onAhead: () => this.#closeNamespace(namespaceId),
          });
          this.#channels.set(namespaceId, channel);
          // Commits between reading the tail and now were notified to nobody: read them.
          channel.resync();
          return channel;
        } finally {
          this.#opening.delete(namespaceId);
        }
      })();
      this.#opening.set(namespaceId, opening);
    }
    return opening;
  }

  #closeNamespace(namespaceId: string): void {
    for (const conn of [...this.#connections]) {
      if (conn.namespace.id === namespaceId) conn.close("stale_cursor", "the namespace's cursor went back (database restored): reconcile by content hashes");
    }
  }

  /** Pings everyone, drops who missed the last ping, sends heartbeats, closes connections of an old epoch. */
  async #sweep(): Promise<void> {
    let server: ServerRef | null = null;
    try {
      server = (await this.#identity.current()).server;
    } catch {
      server = null; // the database is away; the epoch is checked next time
    }
    const now = Date.now();
    const half = this.options.heartbeatMs / 2;
    // A sweep that runs late means this process's event loop stalled (a long synchronous task, the
    // embedded database): pongs may be waiting unread, so nobody is judged on this round's ping.
    const stalled = now - this.#lastSweepAt > this.options.heartbeatMs + half;
    this.#lastSweepAt = now;
    for (const conn of [...this.#connections]) {
      if (!conn.open) continue;
      if (!conn.alive && !stalled) {
        conn.close("idle_timeout", "no pong since the last ping", { frame: false });
        continue;
      }
      if (server && conn.server && (conn.server.epoch !== server.epoch || conn.server.id !== server.id)) {
        conn.close("stale_cursor", "the server's epoch changed: reconcile by content hashes, then subscribe again", { details: { server } });
        continue;
      }
      conn.alive = false;
      conn.socket.ping();
      if (conn.state === "live" && now - conn.lastSendAt >= half) conn.send(JSON.stringify({ type: "heartbeat", cursor: conn.lastSent }));
    }
  }

  /** Closes the connections whose token was revoked or expired (4401), within `tokenCheckMs`. */
  async #checkTokens(): Promise<void> {
    if (this.#checkingTokens || this.#connections.size === 0) return;
    this.#checkingTokens = true;
    try {
      const now = Date.now();
      const ids = [...new Set([...this.#connections].map((c) => c.auth.tokenId))];
      const verdicts = await tokenVerdicts(this.#db, ids, now);
      for (const conn of [...this.#connections]) {
        const verdict = conn.auth.expiresAtMs !== null && conn.auth.expiresAtMs <= now ? "token_expired" : verdicts.get(conn.auth.tokenId);
        if (verdict === "token_expired") conn.close("token_expired", "the token has expired");
        else if (verdict === "token_revoked") conn.close("token_revoked", "the token has been revoked");
      }
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, "change stream: checking tokens failed");
    } finally {
      this.#checkingTokens = false;
    }
  }

  /**
   * Reads the cursor of every namespace with a channel here (one query) and hands it to the
   * channel, which reads the feed if it is behind. Notifications are sent after the commit
   * (store/change-notifier.ts), so one can be lost: this bounds how late its change arrives.
   */
  async #readCursors(): Promise<void> {
    if (this.#readingCursors || this.#channels.size === 0) return;
    this.#readingCursors = true;
    try {
      const cursors = await namespaceCursors(this.#db, [...this.#channels.keys()]);
      for (const [namespaceId, cursor] of cursors) this.#channels.get(namespaceId)?.notify(cursor);
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, "change stream: reading the namespaces' cursors failed");
    } finally {
      this.#readingCursors = false;
    }
  }

  /**
   * Graceful shutdown: closes every connection with 1001 `server_shutting_down` and waits until
   * their close handshakes finish, at most `closeGraceMs`; stragglers are dropped.
   */
  async shutdown(): Promise<void> {
    this.#closing = true;
    const sockets = [...this.#connections].map((c) => c.socket);
    for (const conn of [...this.#connections]) conn.close("server_shutting_down", "the server is shutting down; reconnect later");
    const deadline = Date.now() + this.options.closeGraceMs;
    while (sockets.some((s) => s.readyState !== s.CLOSED) && Date.now() < deadline) await sleep(20);
    for (const s of sockets) if (s.readyState !== s.CLOSED) s.terminate();
  }

  /** Stops the timers, the channels and the LISTEN connection. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    if (this.#tokenTimer) clearInterval(this.#tokenTimer);
    if (this.#cursorTimer) clearInterval(this.#cursorTimer);
    for (const channel of this.#channels.values()) channel.close();
    this.#channels.clear();
    await this.listener.close();
  }
}
