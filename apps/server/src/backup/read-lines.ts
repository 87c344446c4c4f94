/**
 * Lines of a byte stream, read as the consumer asks for them (a slow consumer pauses the stream):
 * memory holds one chunk and the current line. Lines end in "\n" (a "\r" before it is dropped);
 * a last line without "\n" is yielded too, flagged `unterminated`.
 */

/** One line: its 1-based number, its bytes decoded as UTF-8 (null when they are not valid UTF-8). */
export interface Line {
  number: number;
  text: string | null;
  /** The stream ended without a newline after this line (a cut-short file, or an editor's habit). */
  unterminated: boolean;
}

/** A line longer than `maxBytes`: reading stops there. */
export class LineTooLongError extends Error {
  constructor(
    readonly line: number,
    readonly maxBytes: number,
  ) {
    super(`line ${line} is longer than ${maxBytes} bytes`);
    this.name = "LineTooLongError";
  }
}

/**
 * @param source a Readable or any async iterable of byte (or string) chunks
 * @param maxBytes longest line accepted, bytes (default 256 MiB)
 * @throws LineTooLongError; whatever reading `source` throws
 */
export async function* readLines(source: AsyncIterable<Uint8Array | string>, maxBytes = 256 * 1024 * 1024): AsyncGenerator<Line> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (bytes: Buffer): string | null => {
    try {
      return decoder.decode(bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes);
    } catch {
      return null;
    }
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  for await (const raw of source) {
    let chunk = typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a)) {
      const piece = chunk.subarray(0, nl);
      if (pendingBytes + piece.length > maxBytes) throw new LineTooLongError(number + 1, maxBytes);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      number += 1;
      yield { number, text: decode(bytes), unterminated: false };
      chunk = chunk.subarray(nl + 1);
    }
    if (chunk.length > 0) {
      pendingBytes += chunk.length;
      if (pendingBytes > maxBytes) throw new LineTooLongError(number + 1, maxBytes);
      // Copy: the source may reuse its buffer.
      pending.push(Buffer.from(chunk));
    }
  }
  if (pendingBytes > 0) yield { number: number + 1, text: decode(Buffer.concat(pending)), unterminated: true };
}
