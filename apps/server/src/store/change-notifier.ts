/**
 * Sends `NOTIFY teammem_changes, '<namespace id>:<cursor>'` for writes committed through this
 * instance's `pg` pool, AFTER their commit and outside their transaction.
 *
 * Why not inside the write's transaction: PostgreSQL serializes the commits of transactions that
 * NOTIFY (`PreCommit_Notify` takes a database-wide lock held until the commit record is flushed),
 * so concurrent writes that notify cannot share a WAL flush (bench/README.md, pg-fast-forward.mjs).
 * Here a write only records its namespace's new cursor ({@link ChangeNotifier.committed}, no I/O);
 * one transaction at a time sends every namespace's highest committed cursor since the last one
 * (`pg_notify` over an array, `synchronous_commit` off for that transaction only: it writes nothing
 * but the notifications, whose data is already durable), so concurrent writers share it.
 * The exception, a lone writer: when nothing of this instance is being notified, a single
 * fast-forward (store/fast-forward.ts) may carry its own NOTIFY in its statement
 * ({@link ChangeNotifier.claimInline}), one at a time, so no commit of this instance waits for it.
 *
 * The guarantee (live/README.md): a failed send is retried (`retryMs`) until it is sent or the
 * notifier is closed; a notification is lost only when the process ends between a commit and the
 * send. Subscribers are repaired from the change feed: by the next notification of the namespace
 * (it carries a later cursor, and the feed is read from the channel's tail), and by the hub's
 * periodic catch-up (live/change-hub.ts, `catchUpMs`).
 *
 * On the embedded PGlite database (one connection, no lock to share) writes keep notifying inside
 * their transaction (store/namespace-transaction.ts) and this class sends nothing.
 */
import type { FastifyBaseLogger } from "fastify";
import type pg from "pg";
import { withValues } from "../db/prepared-statement.js";

/** The channel every write notifies and every instance listens on (live/change-listener.ts). */
export const CHANGES_CHANNEL = "teammem_changes";

/**
 * One statement, one transaction: every payload of `$1` (`<namespace id>:<cursor>`). set_config(…, true)
 * lasts until the end of this transaction only.
 */
const SEND = {
  name: "teammem_notify_changes",
  text: `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${CHANGES_CHANNEL}', p) FROM unnest($1::text[]) AS p`,
};

export interface ChangeNotifierOptions {
  /** Wait before sending again after a failed send (ms). Default 500. */
  retryMs: number;
}

export const DEFAULT_CHANGE_NOTIFIER_OPTIONS: ChangeNotifierOptions = { retryMs: 500 };

export class ChangeNotifier {
  readonly #pool: pg.Pool | null;
  readonly #log: FastifyBaseLogger | null;
  readonly #opts: ChangeNotifierOptions;
  /** Highest committed cursor per namespace id, not yet sent. */
  #pending = new Map<string, number>();
  /** The running send loop, if any. */
  #sending: Promise<void> | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Writes in flight that carry their own notification ({@link claimInline}): 0 or 1. */
  #inline = 0;

  /**
   * @param pool the pool writes commit through; null (PGlite) makes every call a no-op.
   * @param log where failed sends are reported (warn); null: nowhere.
   */
  constructor(pool: pg.Pool | null, log: FastifyBaseLogger | null, opts: ChangeNotifierOptions = DEFAULT_CHANGE_NOTIFIER_OPTIONS) {
    this.#pool = pool;
    this.#log = log;
    this.#opts = opts;
  }

  /**
   * A transaction that committed moved namespace `namespaceId`'s cursor to `cursor`: notify it
   * soon (never throws, never waits). Call only after the COMMIT succeeded.
   */
  committed(namespaceId: string, cursor: number): void {
    if (!this.#pool || this.#closed) return;
    const known = this.#pending.get(namespaceId);
    if (known === undefined || cursor > known) this.#pending.set(namespaceId, cursor);
    if (!this.#sending && !this.#retryTimer) this.#sending = this.#send();
  }

  /**
   * May the write about to be sent notify its own cursor inside its transaction (`pg_notify` in
   * its statement, store/fast-forward.ts), saving the NOTIFY's round trip and transaction? Yes
   * only when nothing else of this instance notifies: no send in flight, waiting or pending, and
   * no other such write in flight; so the commit it delays is its own alone (PostgreSQL
   * serializes the commits of notifying transactions), which is what a lone writer, the common
   * case at low load, gets. Under concurrency its writes keep {@link committed}, whose sends they share.
   * A `true` must be followed by {@link inlineDone} once the write has ended, whatever its outcome.
   * Always false without a pool (PGlite) and after {@link close}.
   */
  claimInline(): boolean {
    if (!this.#pool || this.#closed || this.#inline > 0 || this.#sending || this.#retryTimer || this.#pending.size > 0) return false;
    this.#inline++;
    return true;
  }

  /** The write of a {@link claimInline} that returned true has ended (committed or not). */
  inlineDone(): void {
    if (this.#inline > 0) this.#inline--;
  }

  /** Namespaces with a committed cursor not yet sent (for tests and diagnostics). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Resolves when what was committed before the call has been sent, or its send failed once. */
  async flush(): Promise<void> {
    if (this.#retryTimer) {
      clearTimeout(this.#retryTimer);
      this.#retryTimer = null;
      this.#sending = this.#send();
    }
    while (this.#sending) await this.#sending;
  }

  /** Sends what is pending (one attempt), then sends nothing more. Call before the pool closes. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  /** Sends batches until nothing is pending; after a failure, puts the batch back and retries later. */
  async #send(): Promise<void> {
    try {
      while (this.#pending.size > 0 && this.#pool) {
        const batch = this.#pending;
        this.#pending = new Map();
        try {
          await this.#pool.query(withValues(SEND, [[...batch].map(([id, cursor]) => `${id}:${cursor}`)]));
        } catch (err) {
          // Sent or not, sending again is harmless: a listener ignores a cursor it has already read to.
          for (const [id, cursor] of batch) {
            const newer = this.#pending.get(id);
            if (newer === undefined || newer < cursor) this.#pending.set(id, cursor);
          }
          this.#log?.warn({ err: { message: (err as Error).message }, namespaces: batch.size, retryInMs: this.#opts.retryMs }, "change notifier: sending NOTIFY failed; retrying");
          if (!this.#closed) {
            this.#retryTimer = setTimeout(() => {
              this.#retryTimer = null;
              if (!this.#sending) this.#sending = this.#send();
            }, this.#opts.retryMs);
            this.#retryTimer.unref();
          }
          return;
        }
      }
    } finally {
      this.#sending = null;
    }
  }
}
