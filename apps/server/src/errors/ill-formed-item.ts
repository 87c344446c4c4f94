/**
 * The mark of a batch operation that holds a string which is not well-formed UTF-16: the request
 * validator (http/validator.ts) parses such an item with U+FFFD in place of its lone surrogates,
 * so the route gets a well-typed operation, and marks it; the store rejects a marked operation
 * alone with the mark's `invalid_utf8` refusal, echoing the opId and path as sent.
 */
import type { Refusal } from "./refusal.js";

export interface IllFormedItem {
  /** `invalid_utf8`, `details.field` naming the item's field (`path`, `content`...). */
  refusal: Refusal;
  /** The item's `opId` and `path` as sent (lone surrogates included). */
  opId: string;
  path: string;
}

const MARK = Symbol("teammem.illFormedItem");

/** Marks `item` (a parsed operation) as {@link IllFormedItem} `mark`. */
export function markIllFormed(item: object, mark: IllFormedItem): void {
  Object.defineProperty(item, MARK, { value: mark, enumerable: false });
}

/** The mark of `item`, or undefined when every string of it was well-formed. */
export function illFormedItem(item: object): IllFormedItem | undefined {
  return (item as { [MARK]?: IllFormedItem })[MARK];
}
