import { z } from "zod";
import { Text } from "../well-formed.js";
import { ERROR_CODES } from "../errors.js";
import { NAMESPACE_PATTERN, NAMESPACE_RULE } from "../namespace-names.js";

/** Entry path as sent on the wire; the full rules are checked by `checkEntryPath`. */
export const EntryPath = Text.min(1).max(4096);
/** A client's device id as the client names it (e.g. `ann-laptop`): 1-128 characters, no NUL or other control character. */
export const ClientId = Text
  .min(1)
  .max(128)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "clientId must not contain NUL or other control characters");
/**
 * A namespace name, e.g. `acme-web`, `acme/web`, `group/subgroup/repo`: the rule of
 * `namespace-names.ts` (`checkNamespaceName` tells which part of it a name breaks). In a URL path
 * it travels percent-encoded as one segment (`acme%2Fweb`).
 */
export const NamespaceName = Text.regex(NAMESPACE_PATTERN, `namespace: ${NAMESPACE_RULE}`);
/**
 * The body of a request that takes none (POST /v1/admin/fingerprint-key/rotate, PUT a namespace,
 * DELETE a token): absent, `null` or `{}`; anything else is a 400 `invalid_request` naming it, so a
 * mistaken body is never ignored by a route that changes state (try19 F3).
 */
export const NoBody = z.strictObject({}).nullish();

/** Idempotency key of one write operation, chosen by the client (a UUID is recommended). */
export const OpId = Text.regex(/^[A-Za-z0-9._:-]{8,128}$/, "opId: 8-128 of [A-Za-z0-9._:-]");
/**
 * Largest value of a PostgreSQL `integer` column (2^31 − 1): versions, line and column numbers,
 * fingerprint key ids. A request field stored in one is bounded by it, so a larger value is a 400
 * `invalid_request`, never a database error.
 */
export const MAX_INT4 = 2_147_483_647;
/** Per-entry version number (0 … {@link MAX_INT4}): 1 for the first version of a path; 0 means "the path does not exist for me". */
export const Version = z.number().int().nonnegative().max(MAX_INT4);
/** Per-namespace change cursor (0 … 2^53 − 1, a `bigint` column read as a number): strictly increasing, assigned by the server's database. */
export const Cursor = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * A whole number in a query string or path parameter: decimal digits only (`1e3`, `0x10`, `1.0`,
 * ` 5`, `+5` and the empty string are refused, where `z.coerce.number()` took them as 1000, 16...),
 * then `min` … `max` as a number, so a value out of range gets one message (try17 L2).
 */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, "expected a whole number in decimal digits")
    .transform(Number)
    .pipe(z.number().min(min).max(max));
export const Sha256 = Text.regex(/^[0-9a-f]{64}$/);

/** A finding as it travels on the wire: position and rule only, never the value. */
export const WireFinding = z.strictObject({
  ruleId: Text,
  label: Text,
  line: z.number().int().positive().max(MAX_INT4),
  column: z.number().int().positive().max(MAX_INT4),
});
export type WireFinding = z.infer<typeof WireFinding>;

/** Body of every error reply. `details` is machine-readable (e.g. `{ limit, value }`). */
export const ErrorBody = z.object({
  code: z.enum(ERROR_CODES),
  message: Text,
  details: z.record(Text, z.unknown()).optional(),
  findings: z.array(WireFinding).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The state of one entry at one version; `content` is null for a tombstone (`deleted: true`). */
export const EntryState = z.object({
  path: EntryPath,
  version: Version,
  deleted: z.boolean(),
  sha256: Sha256.nullable(),
  /** Content size in UTF-8 bytes. */
  size: z.number().int().nonnegative(),
  content: Text.nullable(),
  cursor: Cursor,
});
