/**
 * `auth_denied` events without flooding the log: refused requests are counted in memory per
 * (team, code, address, token) and written as one event per key at the end of each window (and
 * when the app closes), with `count`, `periodStart` and `periodEnd`. Never token material: a token
 * is named by its id only, and only when its signature is the server's own.
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../db/database.js";
import { teams } from "../db/schema.js";
import { recordAuditEvent, type Actor } from "./events.js";

/** One refused request. `teamId`/`tokenId`/`actor` only from a token signed with the server's key. */
export interface AuthDenial {
  teamId: string | null;
  code: string;
  remoteAddress: string;
  tokenId: string | null;
  actor: Actor;
}

interface Pending extends AuthDenial {
  count: number;
}

export interface AuthDenialLogOptions {
  /** Length of one counting window in ms. */
  windowMs: number;
  /** Distinct keys kept per window; beyond it, denials are counted per team and code with address `*`. */
  maxKeys: number;
  /** Where a failed write is reported (the counts are then lost: the log must not block requests). */
  onError: (err: unknown) => void;
}

export class AuthDenialLog {
  readonly #db: Db;
  readonly #opts: AuthDenialLogOptions;
  #pending = new Map<string, Pending>();
  #windowStart = new Date();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: Db, opts: AuthDenialLogOptions) {
    this.#db = db;
    this.#opts = opts;
  }

  /** Counts one refused request in the current window. */
  note(d: AuthDenial): void {
    let key = `${d.teamId ?? ""}|${d.code}|${d.remoteAddress}|${d.tokenId ?? ""}`;
    let entry = this.#pending.get(key);
    if (!entry && this.#pending.size >= this.#opts.maxKeys) {
      key = `${d.teamId ?? ""}|${d.code}|*|`;
      entry = this.#pending.get(key);
      if (!entry) {
        entry = { ...d, remoteAddress: "*", tokenId: null, actor: { id: null, name: "anonymous" }, count: 0 };
        this.#pending.set(key, entry);
      }
    }
    if (!entry) {
      entry = { ...d, count: 0 };
      this.#pending.set(key, entry);
    }
    entry.count++;
  }

  /** Starts writing a window's counts every `windowMs`. */
  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#opts.windowMs);
    this.#timer.unref();
  }

  /** Writes the current window's counts now and starts a new window. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  /** Stops the timer and writes what is counted. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #write(): Promise<void> {
    const entries = [...this.#pending.values()];
    const periodStart = this.#windowStart;
    const periodEnd = new Date();
    this.#pending = new Map();
    this.#windowStart = periodEnd;
    if (entries.length === 0) return;
    try {
      // A token signed with the server's key may still name a team that is gone: file those under no team.
      const named = [...new Set(entries.flatMap((e) => (e.teamId ? [e.teamId] : [])))];
      const existing = new Set(
        named.length ? (await this.#db.select({ id: teams.id }).from(teams).where(inArray(teams.id, named))).map((t) => t.id) : [],
      );
      await this.#db.transaction(async (tx) => {
        for (const e of entries) {
          const teamId = e.teamId && existing.has(e.teamId) ? e.teamId : null;
          await recordAuditEvent(tx, {
            teamId,
            actor: e.actor,
            kind: "auth_denied",
            code: e.code,
            count: e.count,
            remoteAddress: e.remoteAddress,
            tokenId: e.tokenId,
            periodStart,
            periodEnd,
          });
        }
      });
    } catch (err) {
      this.#opts.onError(err);
    }
  }
}
