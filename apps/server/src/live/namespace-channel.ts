/**
 * The live tail of one namespace on this instance: reads the change feed after the last cursor it
 * broadcast whenever a notification (or a resync) says there is more, encodes each change once and
 * hands the same frame to every live subscriber. One reader per namespace per instance, however
 * many subscribers: a commit costs one feed query here, not one per socket.
 */
import type { Change } from "@teammem/protocol";
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/database.js";
import { readChanges } from "../store/changes.js";

/** What the channel needs of a subscriber. */
export interface ChannelSubscriber {
  /** Sends `frame` (a `change` message) if `cursor` is past what the subscriber was sent. */
  deliver(cursor: number, frame: string): void;
  /** Everything up to `cursor` is sent (entries rewritten since are sent at their new cursor). */
  advance(cursor: number): void;
}

/** Most changes read per feed query. */
const PAGE = 500;
/** Wait before reading again after a failed read (ms); a LISTEN reconnect retries sooner. */
const RETRY_MS = 1000;

/**
 * The `change` frame of `change`: content inline when at most `maxInlineBytes` UTF-8 bytes, else
 * `content: null, contentOmitted: true`.
 */
export function encodeChange(change: Change, maxInlineBytes: number): string {
  const omit = change.content !== null && change.size > maxInlineBytes;
  return JSON.stringify({ type: "change", change: omit ? { ...change, content: null } : change, contentOmitted: omit });
}

export class NamespaceChannel {
  /** Subscribers that are caught up: every broadcast reaches them. */
  readonly live = new Set<ChannelSubscriber>();
  /** Connections subscribed to this namespace here, live or catching up (the hub closes the channel at 0). */
  members = 0;
  readonly namespaceId: string;
  readonly #db: Db;
  readonly #maxInlineBytes: number;
  readonly #log: FastifyBaseLogger;
  /** Called when the namespace's cursor went below the tail (database restored): close everyone. */
  readonly #onAhead: () => void;
  #tail: number;
  #wanted: number;
  #forced = false;
  #running = false;
  #closed = false;
  #retryTimer: NodeJS.Timeout | null = null;

  constructor(opts: { namespaceId: string; tail: number; db: Db; maxInlineBytes: number; log: FastifyBaseLogger; onAhead: () => void }) {
    this.namespaceId = opts.namespaceId;
    this.#tail = opts.tail;
    this.#wanted = opts.tail;
    this.#db = opts.db;
    this.#maxInlineBytes = opts.maxInlineBytes;
    this.#log = opts.log;
    this.#onAhead = opts.onAhead;
  }

  /** The cursor up to which every change has been broadcast to the live subscribers. */
  get tail(): number {
    return this.#tail;
  }

  /** Closed channels get no subscriber (the hub opens a new one). */
  get closed(): boolean {
    return this.#closed;
  }

  /** A commit moved the namespace's cursor to `cursor`. */
  notify(cursor: number): void {
    if (cursor <= this.#wanted) return;
    this.#wanted = cursor;
    void this.#pump();
  }

  /** Notifications may have been missed: read the feed to its end now. */
  resync(): void {
    this.#forced = true;
    void this.#pump();
  }

  close(): void {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
  }

  async #pump(): Promise<void> {
    if (this.#running || this.#closed) return;
    this.#running = true;
    try {
      while (!this.#closed && (this.#forced || this.#tail < this.#wanted)) {
        this.#forced = false;
        let hasMore = true;
        while (hasMore && !this.#closed) {
          const page = await readChanges(this.#db, this.namespaceId, this.#tail, PAGE);
          if (page === "ahead") {
            this.#onAhead();
            return;
          }
          for (const change of page.changes) {
            const frame = encodeChange(change, this.#maxInlineBytes);
            for (const sub of this.live) sub.deliver(change.cursor, frame);
          }
          this.#tail = page.nextCursor;
          for (const sub of this.live) sub.advance(this.#tail);
          hasMore = page.hasMore;
        }
        if (this.#tail > this.#wanted) this.#wanted = this.#tail;
      }
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, "change stream: reading the change feed failed; retrying");
      this.#forced = true;
      if (!this.#closed) {
        this.#retryTimer = setTimeout(() => void this.#pump(), RETRY_MS);
        this.#retryTimer.unref();
      }
    } finally {
      this.#running = false;
    }
  }
}
