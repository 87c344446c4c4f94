/**
 * The changes a live stream delivered, served to the sync engine as if they came from
 * `GET .../changes`: the engine's pull (merges, conflict markers, renames, cursor and bases) runs
 * unchanged on them, one HTTP round trip shorter. The feed knows a cursor range it covers: every
 * change with a cursor in (`from`, `to`] was delivered (the stream sends all of them, in order, no
 * gap). A pull from a cursor outside that range (a manual `teammem sync` moved the cursor back, a
 * reconnect is under way) goes to the server as before. Changes the stream sent without content
 * (over the server's inline limit) get it from `GET .../version` when served.
 */
import type { Change, ChangesResponse, ServerRef } from "@teammem/protocol";
import type { Api } from "../http/api.js";

interface Delivered {
  readonly change: Change;
  /** The stream left `content` out (too large): fetched when served. */
  readonly contentOmitted: boolean;
}

export class StreamFeed {
  #from = 0;
  #to = 0;
  #covering = false;
  #buffer: Delivered[] = [];
  /** The server identity and epoch the cursors belong to, as last seen (stream or HTTP). */
  server: ServerRef | undefined;

  /** A subscription from `cursor` started: the feed covers nothing yet beyond it. */
  reset(cursor: number, server: ServerRef): void {
    this.#from = cursor;
    this.#to = cursor;
    this.#covering = true;
    this.#buffer = [];
    this.server = server;
  }

  /** The stream was lost: serve nothing until the next subscription. */
  drop(): void {
    this.#covering = false;
    this.#buffer = [];
  }

  /**
   * A change delivered by the stream.
   * @returns false when it was already delivered (a cursor not above the covered range's end).
   */
  add(change: Change, contentOmitted: boolean): boolean {
    if (!this.#covering || change.cursor <= this.#to) return false;
    this.#buffer.push({ change, contentOmitted });
    this.#to = change.cursor;
    return true;
  }

  /** The stream says every change up to `cursor` was sent (caught up, heartbeat). */
  coveredThrough(cursor: number): void {
    if (this.#covering && cursor > this.#to) this.#to = cursor;
  }

  /** Whether a subscription is live (the feed covers a range). */
  get covering(): boolean {
    return this.#covering;
  }

  /** Whether the feed holds a change with a cursor above `cursor`. */
  hasAfter(cursor: number): boolean {
    return this.#buffer.some((d) => d.change.cursor > cursor);
  }

  /** Forgets changes at or below `cursor` (the folder's cursor has passed them). */
  forgetThrough(cursor: number): void {
    this.#buffer = this.#buffer.filter((d) => d.change.cursor > cursor);
  }

  /** `api` with `changes()` served from the feed when it covers the asked range, else from the server. */
  wrap(api: Api): Api {
    return {
      ...api,
      changes: async (since, limit) => {
        const served = this.#serve(since, limit);
        if (!served) {
          const reply = await api.changes(since, limit);
          this.server = reply.server;
          return reply;
        }
        return { ...served, changes: await Promise.all(served.changes.map((d) => withContent(api, d))) };
      },
    };
  }

  #serve(since: number, limit: number): (Omit<ChangesResponse, "changes"> & { changes: Delivered[] }) | undefined {
    if (!this.#covering || !this.server || since < this.#from || since > this.#to) return undefined;
    const after = this.#buffer.filter((d) => d.change.cursor > since);
    const page = after.slice(0, limit);
    const hasMore = after.length > page.length;
    return { changes: page, nextCursor: hasMore ? page[page.length - 1]!.change.cursor : this.#to, hasMore, server: this.server };
  }
}

async function withContent(api: Api, d: Delivered): Promise<Change> {
  if (!d.contentOmitted || d.change.deleted) return d.change;
  const v = await api.version(d.change.path, d.change.version);
  return { ...d.change, content: v.content };
}
