/**
 * Vendor-documented example credentials: values printed in official documentation as samples.
 * They are never reported, by any rule (the engine checks both the rule's `secret` value and the
 * whole match against this list). Rule authors may still list them as negative examples.
 *
 * Sources:
 * - AWS: https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html (access key id and
 *   secret access key examples) and https://docs.aws.amazon.com/STS/latest/APIReference/ (second pair).
 * - GitHub docs sample OAuth token (https://docs.github.com/en/rest/authentication).
 * - Stripe docs sample test keys (https://docs.stripe.com/keys).
 * - jwt.io's sample HS256 token (https://jwt.io, the most-copied JWT in documentation), kept as a
 *   SHA-256 digest in {@link KNOWN_EXAMPLE_SHA256} because written out it is a credential-shaped
 *   literal to this scanner.
 */
import { createHash } from "node:crypto";
import { sameString } from "./engine/same-string.js";

export const KNOWN_EXAMPLE_VALUES: ReadonlySet<string> = new Set([
  // AWS
  "AKIAIOSFODNN7EXAMPLE",
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "AKIAI44QH8DHBEXAMPLE",
  "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
  "ASIAIOSFODNN7EXAMPLE",
  // GitHub documentation sample token (also fails the checksum)
  "gho_16C7e42F292c6912E7710c838347Ae178B4a",
  "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
  // Stripe documentation sample keys
  "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
  "pk_test_TYooMQauvdEDq54NiTphI7jx",
  "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
]);

/**
 * Documented examples known by the SHA-256 (hex) of their UTF-8 text, keyed by their length: ones
 * that would look like a credential to this scanner if written in its source.
 */
export const KNOWN_EXAMPLE_SHA256: ReadonlyMap<number, ReadonlySet<string>> = new Map([
  // jwt.io sample: HS256, {"sub":"1234567890","name":"John Doe","iat":1516239022}, secret "your-256-bit-secret"
  [155, new Set(["7f75367e7881255134e1375e723d1dea8ad5f6a4fdb79d938df1f1754a830606"])],
]);

/**
 * The known examples by length. A lookup compares the value with the few examples of its length
 * (a comparison stops at the first differing character) instead of hashing it: the check runs once
 * per match, and a line can hold thousands of near misses of an example's length.
 */
const EXAMPLES_BY_LENGTH: ReadonlyMap<number, readonly string[]> = [...KNOWN_EXAMPLE_VALUES].reduce(
  (byLength, v) => byLength.set(v.length, [...(byLength.get(v.length) ?? []), v]),
  new Map<number, string[]>(),
);

/** The lengths of the known examples: a value of another length is not one. */
const EXAMPLE_LENGTHS: ReadonlySet<number> = new Set([...[...KNOWN_EXAMPLE_VALUES].map((v) => v.length), ...KNOWN_EXAMPLE_SHA256.keys()]);

/** True when `value` is a known, documented example credential (see {@link KNOWN_EXAMPLE_VALUES} and {@link KNOWN_EXAMPLE_SHA256}). */
export function isKnownExample(value: string): boolean {
  const same = EXAMPLES_BY_LENGTH.get(value.length);
  if (same === undefined && !EXAMPLE_LENGTHS.has(value.length)) return false;
  if (same !== undefined) for (let i = 0; i < same.length; i++) if (sameString(same[i]!, value)) return true;
  const hashed = KNOWN_EXAMPLE_SHA256.get(value.length);
  return hashed !== undefined && hashed.has(createHash("sha256").update(value, "utf8").digest("hex"));
}

/** True when `text.slice(start, end)` is a known example, without slicing a span whose length no example has. */
export function isKnownExampleAt(text: string, start: number, end: number): boolean {
  return EXAMPLE_LENGTHS.has(end - start) && isKnownExample(text.slice(start, end));
}
