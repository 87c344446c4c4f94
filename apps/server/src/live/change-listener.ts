/**
 * One instance's dedicated LISTEN connection on the changes channel: every committed write is
 * announced as `NOTIFY teammem_changes, '<namespace id>:<cursor>'` (store/change-notifier.ts) and this
 * connection hands each to `onChange`. On PostgreSQL it is a `pg.Client` of its own (never one of
 * the pool's), probed every `probeMs` so a silent drop (a PostgreSQL restart, a dead peer) is
 * noticed; it then reconnects with capped exponential backoff and full jitter, LISTENs again and
 * calls `onResync` (notifications sent while it was away are lost, so subscribers catch up from
 * the change feed). On the embedded PGlite database the same notifications come from `db.listen`
 * in the same process, and the connection cannot drop.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { FastifyBaseLogger } from "fastify";
import pg from "pg";
import type { Db } from "../db/database.js";
import { CHANGES_CHANNEL } from "../store/change-notifier.js";

export interface ChangeListenerOptions {
  /** Sends `SELECT 1` on the connection this often (ms); no answer within as long means it is gone. Default 5000. */
  probeMs: number;
  /** First reconnect delay bound (ms); doubles per failed attempt up to `maxBackoffMs`. Default 100. */
  minBackoffMs: number;
  /** Largest reconnect delay bound (ms). Default 5000. */
  maxBackoffMs: number;
}

export const DEFAULT_CHANGE_LISTENER_OPTIONS: ChangeListenerOptions = { probeMs: 5000, minBackoffMs: 100, maxBackoffMs: 5000 };

export interface ChangeHandlers {
  /** A write committed in namespace `namespaceId` and moved its cursor to `cursor`. */
  onChange(namespaceId: string, cursor: number): void;
  /** The connection (re)started listening: notifications may have been missed; catch up from the feed. */
  onResync(): void;
}

export type ListenState = "connecting" | "listening" | "reconnecting" | "closed";

/** Parses a notification payload `<namespace id>:<cursor>`; null for anything else. */
export function parseChangePayload(payload: string | undefined): { namespaceId: string; cursor: number } | null {
  const match = /^([0-9a-f-]{36}):(\d+)$/i.exec(payload ?? "");
  return match ? { namespaceId: match[1]!.toLowerCase(), cursor: Number(match[2]) } : null;
}

/** The `pg` pool behind `db`, or null. */
function pgPool(db: Db): pg.Pool | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

/** The PGlite instance behind `db`, or null. */
function pglite(db: Db): PGlite | null {
  const client = (db as { $client?: unknown }).$client as Partial<PGlite> | undefined;
  return client && typeof client.listen === "function" ? (client as PGlite) : null;
}

export class ChangeListener {
  readonly #db: Db;
  readonly #handlers: ChangeHandlers;
  readonly #opts: ChangeListenerOptions;
  readonly #log: FastifyBaseLogger;
  #state: ListenState = "connecting";
  #client: pg.Client | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #attempt = 0;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #probeTimer: NodeJS.Timeout | null = null;
  /** When the connection last started listening (ms since epoch), for /readyz. */
  #since: number | null = null;
  #reconnects = 0;

  constructor(db: Db, handlers: ChangeHandlers, opts: ChangeListenerOptions, log: FastifyBaseLogger) {
    this.#db = db;
    this.#handlers = handlers;
    this.#opts = opts;
    this.#log = log;
  }

  /** `listening` once LISTEN is in place; `reconnecting` while it is lost. */
  get state(): ListenState {
    return this.#state;
  }

  /** What /readyz reports. */
  status(): { state: ListenState; since: string | null; reconnects: number } {
    return { state: this.#state, since: this.#since === null ? null : new Date(this.#since).toISOString(), reconnects: this.#reconnects };
  }

  /** Connects and LISTENs; when that fails, keeps retrying in the background (never throws). */
  async start(): Promise<void> {
    const lite = pglite(this.#db);
    if (lite) {
      this.#unlisten = await lite.listen(CHANGES_CHANNEL, (payload) => this.#notified(payload));
      this.#listening();
      return;
    }
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#state = "closed";
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
    await this.#unlisten?.().catch(() => undefined);
  }

  #notified(payload: string | undefined): void {
    const change = parseChangePayload(payload);
    if (change) this.#handlers.onChange(change.namespaceId, change.cursor);
  }

  #listening(): void {
    this.#state = "listening";
    this.#since = Date.now();
    this.#attempt = 0;
    this.#handlers.onResync();
  }

  async #connect(): Promise<void> {
    const pool = pgPool(this.#db);
    if (!pool || this.#state === "closed") return;
    // Named, so operators (and tests) tell it from the pool in pg_stat_activity.
    const client = new pg.Client({ ...(pool.options as pg.ClientConfig), keepAlive: true, application_name: "teammem-listen" });
    client.on("error", (err) => this.#lost(client, err));
    client.on("end", () => this.#lost(client, new Error("connection ended")));
    client.on("notification", (msg) => {
      if (msg.channel === CHANGES_CHANNEL) this.#notified(msg.payload);
    });
    try {
      this.#client = client;
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      this.#lost(client, err as Error);
      return;
    }
    if (this.#client !== client) return; // lost (or closed) meanwhile
    this.#probeTimer = setInterval(() => void this.#probe(client), this.#opts.probeMs);
    this.#probeTimer.unref();
    this.#listening();
  }

  async #probe(client: pg.Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to a probe within ${this.#opts.probeMs} ms`)), this.#opts.probeMs);
    });
    try {
      await Promise.race([client.query("SELECT 1"), timeout]);
    } catch (err) {
      this.#lost(client, err as Error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection `client` is gone: drop it and reconnect after a backoff (once per loss). */
  #lost(client: pg.Client, err: Error): void {
    if (this.#client !== client || this.#state === "closed") return;
    this.#client = null;
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    this.#probeTimer = null;
    client.end().catch(() => undefined);
    if (this.#state === "listening") this.#reconnects++;
    this.#state = "reconnecting";
    const bound = Math.min(this.#opts.maxBackoffMs, this.#opts.minBackoffMs * 2 ** this.#attempt++);
    const delayMs = Math.round(Math.random() * bound);
    this.#log.warn({ err: { message: err.message }, retryInMs: delayMs }, "change listener: LISTEN connection lost; reconnecting");
    this.#reconnectTimer = setTimeout(() => void this.#connect(), delayMs);
    this.#reconnectTimer.unref();
  }
}
