/**
 * Reads a reply's body with a size bound and a deadline, so a server (or a proxy, captive portal)
 * that keeps sending after its headers cannot hold the client forever or fill its memory: the body
 * is streamed, its bytes counted, and reading stops (the stream cancelled, which closes the
 * connection) as soon as either bound is passed.
 */

/**
 * Largest error body read, in bytes: an error body is `{ code, message, details? }`, a few KiB at
 * most (its details list at most a batch's findings); a longer one is abandoned and the status decides.
 */
export const MAX_ERROR_REPLY_BYTES = 1024 * 1024;

/** Why {@link readReplyText} stopped reading: the body passed `maxBytes`, or `deadlineAt` came first. */
export class ReplyLimitError extends Error {
  constructor(
    readonly kind: "too_large" | "too_slow",
    /** `maxBytes` (too_large) or the milliseconds the reply was given (too_slow). */
    readonly limit: number,
  ) {
    super(kind === "too_large" ? `reply larger than ${limit} bytes` : `reply not complete within ${limit} ms`);
    this.name = "ReplyLimitError";
  }
}

/**
 * The body of `response` as UTF-8 text, read until its end.
 * @param maxBytes most body bytes accepted (as received, after any content decoding by fetch).
 * @param deadlineAt `performance.now()` time by which the whole body must have arrived.
 * @param budgetMs the time the reply was given, only for the error's message.
 * @throws ReplyLimitError `too_large` once more than `maxBytes` arrived, `too_slow` at `deadlineAt`;
 *   the body is cancelled either way. Other stream errors (connection reset) are thrown as they come.
 */
export async function readReplyText(response: Response, maxBytes: number, deadlineAt: number, budgetMs: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, deadlineAt - performance.now()));
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late") throw new ReplyLimitError("too_slow", budgetMs);
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBytes) throw new ReplyLimitError("too_large", maxBytes);
      chunks.push(next.value);
    }
  } catch (err) {
    reader.cancel().catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total)); // like Response.text(): a BOM is dropped, bad bytes become U+FFFD
}
