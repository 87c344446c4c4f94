/** Unified diff between two versions of an entry (jsdiff's `createTwoFilesPatch`). */
import { createTwoFilesPatch } from "diff";

/**
 * The unified diff turning `fromContent` into `toContent`, with headers `path@vFROM` / `path@vTO`
 * and 3 lines of context. Null content (tombstone, version 0) diffs as the empty text.
 */
export function unifiedDiff(path: string, from: number, fromContent: string | null, to: number, toContent: string | null): string {
  return createTwoFilesPatch(`${path}@v${from}`, `${path}@v${to}`, fromContent ?? "", toContent ?? "", undefined, undefined, { context: 3 });
}
