import type { Db } from "../db/database.js";
import { loadServerIdentity, type ServerIdentity } from "./server-identity.js";

/**
 * The server identity as one app instance answers it: read (and checked against the database's
 * origin, see server-identity.ts) at most once per `ttlMs`, so an epoch started by another process
 * (`teammem-server epoch rotate`, an import) or a database replaced under a running server is
 * answered within `ttlMs`. One read at a time; callers during a read share it.
 */
export class IdentityCache {
  #value: { identity: ServerIdentity; readAt: number } | undefined;
  #reading: Promise<ServerIdentity> | undefined;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {}

  /** The identity, at most `ttlMs` old. @throws when the database cannot be read. */
  async current(): Promise<ServerIdentity> {
    if (this.#value && Date.now() - this.#value.readAt < this.ttlMs) return this.#value.identity;
    this.#reading ??= loadServerIdentity(this.db)
      .then((identity) => {
        this.#value = { identity, readAt: Date.now() };
        return identity;
      })
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  /** Forgets the cached value: the next call reads the database (after this process started an epoch). */
  invalidate(): void {
    this.#value = undefined;
  }
}
