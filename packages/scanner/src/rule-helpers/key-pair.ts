/**
 * The pattern of a secret next to the ID that names it (AWS secret access key and access key ID,
 * Twilio API key secret and SID): the ID alone only names a key, the two together are the
 * credential, in either order.
 */

/** The same line or one of the next 4, each read up to 160 characters (lazy: the nearest secret wins). */
const GAP = String.raw`(?:[^\n]{0,160}\n){0,4}?[^\n]{0,160}?`;

/**
 * A sticky pattern tried at the ID (`id`, a regex source starting with the rule's literal prefix):
 * the ID, then optionally the gap and a run of exactly `length` characters of `secretChar` after it;
 * a lookbehind then captures `secret`: the run just read (a secret after the ID), or, when nothing
 * after the ID was read, the nearest run before the ID within the same gap (a secret written first).
 * One `secret` group serves both orders. Each attempt reads at most 5 lines of 160 characters on
 * each side.
 */
export function pairPattern(id: string, secretChar: string, length: number): RegExp {
  const run = `(?<!${secretChar})${secretChar}{${length}}(?!${secretChar})`;
  const before = `(?<!${secretChar})(?<secret>${secretChar}{${length}})(?!${secretChar})`;
  return new RegExp(`${id}(?:${GAP}${run})?(?<=${before}(?:${GAP}${id})?)`, "y");
}
