/**
 * `teammem watch` as an instance: {@link Watch.start} takes the folder's watch lock, watches
 * `team/`, runs a full sync (the start's rescan), then keeps the folder in sync until
 * {@link Watch.stop} or a permanent error:
 *
 * - a debounced batch of changed files → `syncFolder` with `only` those paths and no pull (the
 *   one send path `sync` and `push` use: scan, outbox, batches, merges and conflicts as there);
 * - the change stream (`stream-client.ts`) → a pull through the engine, served from what the
 *   stream delivered (`stream-feed.ts`), so merges and conflict markers behave exactly as in sync;
 * - one sync at a time: work that arrives meanwhile is merged into the next run. Each run takes
 *   the folder's command lock only while it runs, so `status`, `resolve`, `sync` work in between;
 * - failures that can pass (server unreachable, restarting, busy) are retried with capped
 *   exponential backoff and full jitter; permanent ones (token refused or revoked, namespace
 *   gone) end the watch with exit code 1 and say so.
 *
 * Nothing is lost when the process is killed: queued operations are in the durable outbox, and a
 * change seen by the watcher but not queued yet is found again by the next start's rescan.
 */
import { skippedLine } from "../scope.js";
import { ClientError, localFailure, NetworkError, ServerError } from "../errors.js";
import { createApi } from "../http/api.js";
import { loadBypasses } from "../state/bypasses.js";
import { requireConfig, type Config } from "../state/config.js";
import { displayPath, type Layout } from "../state/layout.js";
import { LockBusyError } from "../state/lock.js";
import { listOutbox } from "../state/outbox.js";
import { loadSyncState } from "../state/sync-state.js";
import { MassDeleteRefused } from "../sync/mass-delete.js";
import { syncFolder } from "../sync/sync-folder.js";
import type { SyncSummary } from "../sync/sync.js";
import { backoffDelayMs, type BackoffOptions } from "./backoff.js";
import type { LiveEvent } from "./live-log.js";
import { StreamConnection, type StreamEnd } from "./stream-client.js";
import { StreamFeed } from "./stream-feed.js";
import { TeamWatcher } from "./team-watcher.js";
import { acquireWatchLock, tookOverWatchMessage } from "./watch-lock.js";

export interface WatchOptions {
  readonly token: string;
  /** The folder's config; read from `.teammem/config.json` when absent. */
  readonly config?: Config;
  /** Receives everything the watch reports, in order. */
  readonly log: (event: LiveEvent) => void;
  /** Debounce of file events: quiet time before a push, ms (default 100). */
  readonly quietMs?: number;
  /** Debounce: longest wait from a file event to its push while events keep coming, ms (default 1000). */
  readonly maxWaitMs?: number;
  /** A file found empty after an event is pushed only once it stayed empty this long, ms (default 2000): a truncate-then-write save sends only its final content. */
  readonly emptySettleMs?: number;
  /** Retry waits (full jitter; default 0.5 s doubling up to 30 s). */
  readonly backoff?: BackoffOptions;
  /** A full rescan of `team/` this often, a safety net for missed file events, ms (default 300 000; 10 000 once watching failed). */
  readonly rescanIntervalMs?: number;
  /** {@link Watch.stop}: longest time to send what is pending, ms (default 10 000); the rest stays queued. */
  readonly stopTimeoutMs?: number;
  /** Uniform random numbers in [0, 1) for the jitter (default Math.random). */
  readonly random?: () => number;
  /** While a bypass request of this folder is pending: how often its file is sent again (the run asks the server for the decision), ms (default 10 000). */
  readonly bypassCheckMs?: number;
}

/** How a watch ended. */
export interface WatchEnd {
  /** 0: stopped; 1: a permanent error (`message`, `code`). */
  readonly exitCode: 0 | 1;
  readonly message?: string;
  /** The error's stable code (the server's, or the client's `CLIENT_ERROR_CODES`) when `exitCode` is 1. */
  readonly code?: string;
  /** Operations still queued in the outbox. */
  readonly pending: number;
}

/** Error codes after which retrying cannot help: the token or the namespace is not usable. */
const PERMANENT = new Set(["unauthorized", "token_expired", "token_revoked", "token_not_yet_valid", "forbidden", "not_found"]);

/** What to do about a refusal that ends the watch, for the user. */
function permanentHint(code: string): string {
  if (code === "not_found") return "the namespace is gone on the server (or belongs to another team)";
  if (code === "forbidden") return "the token may not read this namespace";
  return "get a new token (teammem init --token T, or TEAMMEM_TOKEN) and start teammem watch again";
}

/** Work for the next sync run. */
interface Work {
  /** Rescan and send everything, and pull. */
  full: boolean;
  /** Pull what the stream delivered. */
  pull: boolean;
  /** Entry paths (files or folders; "" = all) to rescan and send. */
  readonly prefixes: Set<string>;
}

const LOCK_BUSY_RETRY_MS = 300;
/** stale_cursor closes in a row (each followed by a full sync) before the watch gives up. */
const MAX_STALE_CLOSES = 3;
const FALLBACK_RESCAN_MS = 10_000;
/** Pull interval against a server without the change stream, ms. */
const POLL_MS = 10_000;
/** While a bypass request is pending, how often the watch asks for the decision, ms. */
const BYPASS_CHECK_MS = 10_000;
/**
 * Once the stop has cut off the requests in flight, longest wait for the run they belonged to (its
 * local steps, releasing the command lock) before the watch ends anyway, ms.
 */
const STOP_SETTLE_MS = 5_000;

/** Whether `promise` settled within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const result = await Promise.race([settled, new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return result;
}

export class Watch {
  readonly #layout: Layout;
  readonly #options: WatchOptions;
  #config!: Config;
  readonly #feed = new StreamFeed();
  #watcher: TeamWatcher | undefined;
  #releaseLock: (() => Promise<void>) | undefined;

  readonly #work: Work = { full: false, pull: false, prefixes: new Set() };
  #busy: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #syncFailures = 0;
  /** The folder's cursor after the last run. */
  #cursor = 0;

  #stream: StreamConnection | undefined;
  #connecting = false;
  #streamTimer: NodeJS.Timeout | undefined;
  #streamFailures = 0;
  /** stale_cursor closes since the last subscription that held. */
  #staleCloses = 0;
  #rescanTimer: NodeJS.Timeout | undefined;
  /** `team/` itself was removed or replaced while watched (rescans took over). */
  #rootReplaced = false;
  #polling: NodeJS.Timeout | undefined;
  #bypassTimer: NodeJS.Timeout | undefined;

  /** What was last reported about held-back files and unresolved conflicts (reported again only when they change). */
  #heldSeen = new Map<string, string>();
  #unresolvedSeen = new Set<string>();
  /** Skipped paths (and why) already told, once each per watch. */
  #skippedSeen = new Set<string>();

  #stopping: Promise<WatchEnd> | undefined;
  /** Aborted when the watch ends: every request of its runs still in flight is cut off (http/api.ts `signal`). */
  readonly #halt = new AbortController();
  /** Aborted by {@link stopNow}: the stop sends nothing more. */
  readonly #stopNowRequested = new AbortController();
  #resolveEnded!: (end: WatchEnd) => void;
  /** Resolves when the watch has ended (after {@link stop} or a permanent error), lock released. */
  readonly ended: Promise<WatchEnd> = new Promise((resolve) => (this.#resolveEnded = resolve));

  constructor(layout: Layout, options: WatchOptions) {
    this.#layout = layout;
    this.#options = options;
  }

  /**
   * Starts watching: lock, file watcher, the first full sync (in the background), then the stream.
   * @throws UsageError when the folder was never set up; WatchRunningError when another watch runs on it.
   */
  async start(): Promise<void> {
    this.#config = this.#options.config ?? (await requireConfig(this.#layout));
    const lock = await acquireWatchLock(this.#layout, (err) => void this.#fail(`the watch lock on ${this.#layout.root} was lost (${err.message})`, "failed"));
    this.#releaseLock = lock.release;
    try {
      this.#watcher = new TeamWatcher(this.#layout, {
        ...(this.#options.quietMs === undefined ? {} : { quietMs: this.#options.quietMs }),
        ...(this.#options.maxWaitMs === undefined ? {} : { maxWaitMs: this.#options.maxWaitMs }),
        ...(this.#options.emptySettleMs === undefined ? {} : { emptySettleMs: this.#options.emptySettleMs }),
        onBatch: (prefixes) => {
          for (const p of prefixes) this.#work.prefixes.add(p);
          if (prefixes.has("") && !this.#rootReplaced) {
            // team/ itself was removed or replaced: the watcher does not follow a new folder there.
            this.#rootReplaced = true;
            this.#log({ type: "warning", message: `${this.#layout.team} was removed or replaced: rescanning it every ${FALLBACK_RESCAN_MS / 1000} s (restart teammem watch to watch it again)` });
            this.#scheduleRescans(FALLBACK_RESCAN_MS);
          }
          this.#kick();
        },
        onError: (err) => {
          this.#log({ type: "warning", message: `watching ${this.#layout.team} failed (${(err as NodeJS.ErrnoException).code ?? err.message}); rescanning every ${FALLBACK_RESCAN_MS / 1000} s instead` });
          this.#scheduleRescans(FALLBACK_RESCAN_MS);
        },
      });
      await this.#watcher.start();
    } catch (err) {
      await this.#releaseLock();
      throw err;
    }
    this.#cursor = (await loadSyncState(this.#layout)).cursor;
    this.#log({ type: "started", folder: this.#layout.root, server: this.#config.server, namespace: this.#config.namespace, cursor: this.#cursor });
    if (lock.tookOverPid !== undefined) this.#log({ type: "warning", message: tookOverWatchMessage(lock.tookOverPid) });
    this.#scheduleRescans(this.#options.rescanIntervalMs ?? 300_000);
    this.#scheduleBypassChecks(this.#options.bypassCheckMs ?? BYPASS_CHECK_MS);
    this.#work.full = true;
    this.#kick();
  }

  /**
   * Stops: no new work, the stream closed, every team file changed and not sent yet pushed (for
   * at most `stopTimeoutMs`; what is not sent by then stays queued), then every request still in
   * flight cut off whatever the server does (try20 F3), the locks released.
   */
  stop(): Promise<WatchEnd> {
    return this.#finish({ exitCode: 0 });
  }

  /**
   * Stops without waiting for the pending changes to be sent (a second Ctrl-C): as {@link stop},
   * but the push of what is pending is cut off at once (it stays queued in the outbox, sent by the
   * next `sync` or `watch`). Called during a {@link stop}, it ends that stop's wait.
   */
  stopNow(): Promise<WatchEnd> {
    this.#stopNowRequested.abort();
    return this.#finish({ exitCode: 0 });
  }

  #log(event: LiveEvent): void {
    this.#options.log(event);
  }

  #fail(message: string, code: string): Promise<WatchEnd> {
    return this.#finish({ exitCode: 1, message, code });
  }

  #finish(end: { exitCode: 0 | 1; message?: string; code?: string }): Promise<WatchEnd> {
    this.#stopping ??= (async () => {
      if (this.#retryTimer) clearTimeout(this.#retryTimer);
      if (this.#streamTimer) clearTimeout(this.#streamTimer);
      if (this.#rescanTimer) clearInterval(this.#rescanTimer);
      if (this.#polling) clearInterval(this.#polling);
      if (this.#bypassTimer) clearInterval(this.#bypassTimer);
      this.#retryTimer = this.#streamTimer = this.#rescanTimer = undefined;
      this.#stream?.close();
      await this.#watcher?.stop();
      // Everything saved before the stop is sent, even a file whose event has not arrived yet.
      if (end.exitCode === 0) this.#work.prefixes.add("");
      let note: string | undefined;
      let flushed: Promise<void> | undefined;
      if (end.exitCode === 0) {
        flushed = this.#flushForStop().catch((err: unknown) => void (note = `pending changes not sent (${err instanceof Error ? err.message : String(err)})`));
        const timeoutMs = this.#options.stopTimeoutMs ?? 10_000;
        const now = this.#stopNowRequested.signal;
        const cutOff = new Promise<void>((resolve) => (now.aborted ? resolve() : now.addEventListener("abort", () => resolve(), { once: true })));
        if (!(await settledWithin(Promise.race([flushed, cutOff]), timeoutMs))) note = `pending changes not sent within ${timeoutMs / 1000} s`;
        else if (now.aborted) note ??= "stopped at once: pending changes not sent";
      }
      // What still runs (a run, the flush) has its requests cut off, ends, and releases the command lock.
      this.#halt.abort();
      await settledWithin(Promise.all([this.#busy, flushed]), STOP_SETTLE_MS);
      const pending = (await listOutbox(this.#layout)).length;
      await this.#releaseLock?.().catch(() => undefined);
      const message = end.message ?? note;
      const result: WatchEnd = { exitCode: end.exitCode, pending, ...(message === undefined ? {} : { message }), ...(end.code === undefined ? {} : { code: end.code }) };
      this.#log({ type: "stopped", ...result });
      this.#resolveEnded(result);
      return result;
    })();
    return this.#stopping;
  }

  /** At stop: waits for the run in progress, then sends every team file changed since its base (no pull). */
  async #flushForStop(): Promise<void> {
    await this.#busy;
    const { full, prefixes } = this.#work;
    if (!full && prefixes.size === 0) return;
    this.#work.pull = false;
    await this.#runOnce(true);
  }

  #scheduleRescans(intervalMs: number): void {
    if (this.#stopping) return;
    if (this.#rescanTimer) clearInterval(this.#rescanTimer);
    this.#rescanTimer = setInterval(() => {
      this.#work.prefixes.add("");
      this.#kick();
    }, intervalMs);
    this.#rescanTimer.unref();
  }

  /**
   * While a bypass request of this folder waits for an admin, its file is sent again every
   * `intervalMs`: the run asks the server for the decision, and an approval sends the held file
   * then, not at the file's next save (try18 F7). Nothing runs while no request is pending.
   */
  #scheduleBypassChecks(intervalMs: number): void {
    this.#bypassTimer = setInterval(() => {
      if (this.#stopping || this.#busy) return;
      loadBypasses(this.#layout)
        .then((all) => {
          const pending = all.filter((b) => b.status === "pending");
          if (pending.length === 0 || this.#stopping) return;
          for (const b of pending) this.#work.prefixes.add(b.path);
          this.#kick();
        })
        .catch(() => undefined); // a damaged file: the next sync says so
    }, intervalMs);
    this.#bypassTimer.unref();
  }

  /** Starts a sync run when there is work and none is running or waiting to retry. */
  #kick(): void {
    if (this.#stopping || this.#busy || this.#retryTimer) return;
    const { full, pull, prefixes } = this.#work;
    if (!full && !pull && prefixes.size === 0) return;
    this.#busy = this.#runOnce(false)
      .catch((err: unknown) => {
        const local = localFailure(err);
        void this.#fail(local?.message ?? `unexpected error: ${err instanceof Error ? err.message : String(err)}`, local?.code ?? "failed");
      })
      .finally(() => {
        this.#busy = undefined;
        this.#kick();
      });
  }

  /** One sync run over the work gathered so far; failures put the work back. */
  async #runOnce(stopping: boolean): Promise<void> {
    const full = this.#work.full;
    const prefixes = [...this.#work.prefixes];
    // While the stream is live, a pull only when it brought a change past what this folder has.
    const pull = full || (this.#work.pull && (!this.#feed.covering || this.#feed.hasAfter(this.#cursor)));
    this.#work.full = this.#work.pull = false;
    this.#work.prefixes.clear();
    if (!full && !pull && prefixes.length === 0) return;
    const putBack = () => {
      this.#work.full ||= full;
      this.#work.pull ||= pull;
      for (const p of prefixes) this.#work.prefixes.add(p);
    };
    const warned: string[] = [];
    let summary: SyncSummary;
    try {
      summary = await syncFolder(this.#layout, {
        config: this.#config,
        token: this.#options.token,
        // A client per run: one that found the server unreachable gives up for its run only (http/api.ts), the next run tries again.
        api: this.#feed.wrap(createApi({ server: this.#config.server, namespace: this.#config.namespace, token: this.#options.token, signal: this.#halt.signal })),
        warn: (line) => warned.push(line),
        pull: pull && !stopping,
        ...(full ? {} : { onlyUnder: prefixes }),
      });
    } catch (err) {
      if (err instanceof LockBusyError && !stopping) {
        // A `teammem sync` or `resolve` is working on the folder: try again when it is done.
        putBack();
        this.#retryIn(LOCK_BUSY_RETRY_MS);
        return;
      }
      if (err instanceof MassDeleteRefused) {
        this.#log({ type: "warning", message: `${err.message} (watch goes on; nothing was sent)` });
        return;
      }
      if (err instanceof ClientError) {
        putBack();
        if (!stopping) void this.#fail(err.message, err.code);
        return;
      }
      throw err;
    }
    // A bypass decision is an event of the summary (`bypass-decided`), logged with the others by #report.
    for (const line of warned) if (!line.startsWith("held back ")) this.#log({ type: "warning", message: line });
    this.#report(summary);
    this.#cursor = summary.cursor;
    this.#feed.forgetThrough(summary.cursor);
    if (!summary.error) {
      this.#syncFailures = 0;
      if (!stopping) void this.#connect();
      return;
    }
    putBack();
    if (stopping || this.#stopping) return;
    const err = summary.error;
    if (err instanceof ServerError && !err.retry) {
      void this.#fail(`${err.message}; ${PERMANENT.has(err.code) ? permanentHint(err.code) : "not retrying"}`, err.code);
      return;
    }
    const delay = backoffDelayMs(this.#syncFailures++, this.#options.backoff, this.#options.random);
    this.#log({ type: "disconnected", reason: err instanceof NetworkError ? err.message : `sync failed: ${err.message}`, retryInMs: delay });
    this.#retryIn(delay);
  }

  #retryIn(delayMs: number): void {
    if (this.#stopping) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#kick();
    }, delayMs);
  }

  /** Logs what a run did: files synced, held back (when new or changed), rejected, the engine's events. */
  #report(s: SyncSummary): void {
    for (const path of s.pushed.applied) this.#log({ type: "synced", path, result: "applied" });
    for (const path of s.pushed.merged) this.#log({ type: "synced", path, result: "merged" });
    for (const path of s.pushed.conflicts) this.#log({ type: "synced", path, result: "conflict" });
    for (const r of s.refused) this.#log({ type: "rejected", path: r.path, code: r.code, here: r.here });
    const held = new Map<string, string>();
    for (const h of s.heldBack) {
      held.set(h.path, h.sha256);
      if (this.#heldSeen.get(h.path) === h.sha256) continue;
      this.#log({
        type: "held-back",
        path: displayPath(h.path),
        findings: h.findings.map((f) => ({ ruleId: f.ruleId, label: f.label, line: f.line, column: f.column })),
        pathFindings: (h.pathFindings ?? []).map((f) => ({ ruleId: f.ruleId, label: f.label })),
      });
    }
    this.#heldSeen = held;
    for (const skipped of s.skipped) {
      const key = `${skipped.path}\u0000${skipped.reason}`;
      if (this.#skippedSeen.has(key)) continue;
      this.#skippedSeen.add(key);
      this.#log({ type: "warning", message: skippedLine(skipped) });
    }
    for (const event of s.events) this.#log({ type: "sync-event", event });
    const unresolved = new Set<string>();
    for (const u of s.unresolved) {
      const key = `${u.path}:${u.line}`;
      unresolved.add(key);
      if (!this.#unresolvedSeen.has(key)) this.#log({ type: "unresolved", path: u.path, line: u.line });
    }
    this.#unresolvedSeen = unresolved;
  }

  /** Opens the stream (if not open or scheduled) from the folder's stored cursor. */
  async #connect(): Promise<void> {
    if (this.#stopping || this.#stream || this.#connecting || this.#streamTimer || this.#polling) return;
    this.#connecting = true;
    try {
      const state = await loadSyncState(this.#layout);
      if (this.#stopping) return;
      this.#stream = new StreamConnection({
        server: this.#config.server,
        namespace: this.#config.namespace,
        token: this.#options.token,
        cursor: state.cursor,
        // The identity the stored cursor belongs to (kept with it by the sync), else the one last seen.
        serverRef: state.server ?? this.#feed.server,
        onMessage: (m) => {
          if (m.type === "subscribed") {
            this.#feed.reset(m.cursor, m.server);
            this.#staleCloses = 0;
            this.#streamFailures = 0;
            this.#log({ type: "connected", cursor: m.cursor });
          } else if (m.type === "change") {
            if (this.#feed.add(m.change, m.contentOmitted) && m.change.cursor > this.#cursor) {
              this.#work.pull = true;
              this.#kick();
            }
          } else this.#feed.coveredThrough(m.cursor);
        },
        onEnd: (end) => this.#streamEnded(end),
      });
    } finally {
      this.#connecting = false;
    }
  }

  #streamEnded(end: StreamEnd): void {
    this.#stream = undefined;
    this.#feed.drop();
    if (this.#stopping || end.kind === "stopped") return;
    const code = end.kind === "network" ? undefined : end.code;
    const noStream = end.kind === "refused" && end.code === "not_found" && end.message.startsWith("no route");
    // 426 upgrade_required: the upgrade headers were lost on the way (a proxy that does not pass WebSockets).
    const noUpgrade = end.kind === "refused" && end.code === "upgrade_required";
    if (noStream || noUpgrade) {
      // No change stream to be had: pull on a timer instead.
      const why = noStream ? "the server has no change stream (an older version?)" : "the change stream's WebSocket upgrade did not reach the server (a proxy in between?)";
      this.#log({ type: "warning", message: `${why}: pulling every ${POLL_MS / 1000} s instead` });
      this.#polling ??= setInterval(() => {
        this.#work.pull = true;
        this.#kick();
      }, POLL_MS);
      return;
    }
    if (code !== undefined && PERMANENT.has(code)) {
      void this.#fail(`the server refused the change stream (${end.kind === "network" ? code : end.message}); ${permanentHint(code)}`, code);
      return;
    }
    if (code === "stale_cursor") {
      // The server was restored or reset (another epoch): a full sync reconciles, then the stream resubscribes.
      if (++this.#staleCloses > MAX_STALE_CLOSES) {
        void this.#fail(`the server keeps refusing this folder's cursor (stale_cursor) after a full sync; run teammem sync and check teammem status`, code);
        return;
      }
      this.#feed.server = undefined;
      this.#log({ type: "warning", message: "the server's history changed (restored or reset): reconciling this folder with it" });
      this.#work.full = true;
      this.#kick();
      return;
    }
    if (code === "invalid_request" || code === "body_too_large") {
      void this.#fail(`the server refused this client's stream messages (${end.kind === "network" ? code : end.message}); update teammem`, code);
      return;
    }
    const reason =
      end.kind === "network"
        ? `live stream lost (${end.reason})`
        : end.kind === "refused"
          ? `live stream refused (${end.status} ${end.code})`
          : `live stream closed by the server (${end.closeCode}${end.code ? ` ${end.code}` : ""})`;
    // A slow consumer resumes at once (its first attempt waits at most the base wait).
    const attempt = code === "slow_consumer" ? 0 : this.#streamFailures++;
    const delay = backoffDelayMs(attempt, this.#options.backoff, this.#options.random);
    this.#log({ type: "disconnected", reason, retryInMs: delay });
    this.#streamTimer = setTimeout(() => {
      this.#streamTimer = undefined;
      void this.#connect();
    }, delay);
  }
}
