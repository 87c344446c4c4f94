/**
 * How large a teammem server's replies may be, from its entry limit (try15 F11 follow-up): the
 * largest legitimate reply is a page of changes (sync asks for 500; `ChangesQuery` allows 1000),
 * an `entries/read` of 200 heads or a batch's merged results, each entry's content at most the
 * server's `maxEntryBytes` (GET /v1/server `limits`). Until the server's limit is known the
 * bound is {@link MAX_REPLY_BYTES}, which covers its default (256 KiB); a server configured with a
 * larger limit raises it, up to {@link MAX_REPLY_BYTES_CEILING}, and pages are made small enough
 * ({@link ReplyCap.entriesPerReply}) that a full one still fits under that ceiling.
 */

/** Entries of content one reply is sized for: sync's default page of changes. */
export const ENTRIES_PER_PAGE = 500;

/**
 * Reply bytes one entry can take, for a server whose entry limit is `maxEntryBytes` (UTF-8 bytes):
 * its content plus 25 % for JSON escapes and 4 KiB of path, hashes, author and dates.
 */
export function replyBytesPerEntry(maxEntryBytes: number): number {
  return Math.ceil(maxEntryBytes * 1.25) + 4096;
}

/**
 * Largest reply body read while the server's entry limit is not known, in bytes: 500 x
 * replyBytesPerEntry(256 KiB, the server's default) is about 158 MiB, rounded up to 160 MiB.
 */
export const MAX_REPLY_BYTES = 160 * 1024 * 1024;

/**
 * Largest reply body read whatever the server says, in bytes (500 MiB): just under V8's longest
 * string (2^29 - 24 UTF-16 units), so a larger reply could not be decoded anyway.
 */
export const MAX_REPLY_BYTES_CEILING = 500 * 1024 * 1024;

/**
 * The reply bound of one API client. Shared by every copy of that client (a wrapper copies the
 * reference), so the limit read by one sync step holds for the others.
 */
export class ReplyCap {
  #maxEntryBytes: number | null = null;

  /** @param floorBytes the bound while the server's entry limit is unknown or small (default {@link MAX_REPLY_BYTES}). */
  constructor(readonly floorBytes: number = MAX_REPLY_BYTES) {}

  /** Takes the server's entry limit (GET /v1/server `limits.maxEntryBytes`, UTF-8 bytes). */
  useEntryLimit(maxEntryBytes: number): void {
    this.#maxEntryBytes = maxEntryBytes;
  }

  /**
   * Largest reply body read now, in bytes: a page of {@link ENTRIES_PER_PAGE} entries at the
   * server's entry limit, at least `floorBytes`, at most {@link MAX_REPLY_BYTES_CEILING} (unless
   * `floorBytes` is higher).
   */
  get maxBytes(): number {
    if (this.#maxEntryBytes === null) return this.floorBytes;
    const page = ENTRIES_PER_PAGE * replyBytesPerEntry(this.#maxEntryBytes);
    return Math.max(this.floorBytes, Math.min(MAX_REPLY_BYTES_CEILING, page));
  }

  /**
   * Time a reply of {@link maxBytes} is given to arrive whole, in ms: 120 000 for
   * {@link MAX_REPLY_BYTES} (about 11 Mbit/s), longer in proportion for a larger bound.
   */
  get deadlineMs(): number {
    return Math.ceil((120_000 * Math.max(this.maxBytes, MAX_REPLY_BYTES)) / MAX_REPLY_BYTES);
  }

  /**
   * Most entries with content a request should ask for in one reply (pages of changes, entries/read,
   * operations per batch) so that a full reply fits {@link maxBytes}; at least 1. Infinity while
   * the server's limit is unknown (pages keep their sizes).
   */
  get entriesPerReply(): number {
    if (this.#maxEntryBytes === null) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(this.maxBytes / replyBytesPerEntry(this.#maxEntryBytes)));
  }
}
