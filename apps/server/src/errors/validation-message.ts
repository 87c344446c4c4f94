/**
 * The message of a 400 `invalid_request` from schema validation, naming each failing field:
 * "invalid request: body/baseVersion: Invalid input: expected number, received string".
 * A union body (e.g. `{baseVersion, content} | {baseVersion, delete: true}`) fails as one issue at
 * the body's root ("Invalid input"); it is flattened here into the issues of the branch that came
 * closest (fewest issues); branches that come equally close are told apart with "or".
 *
 * Never quotes what the client sent (a token pasted into the wrong field, or sent as a key, must
 * not come back in the reply or the log): zod's own message is used only for issue codes whose
 * message is built from the schema (expected type, limit, pattern, options); an unknown key is
 * named only when {@link isPlainKey}, else said to be "an unknown key"; any other code says
 * "invalid".
 */

/** One validation issue as fastify-type-provider-zod reports it (`params` holds the rest of the zod issue). */
export interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A zod issue inside an `invalid_union` issue's `errors` (path relative to the union). */
interface ZodIssueLike {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  errors?: unknown;
  keys?: unknown;
}

/** Issue codes whose zod message says only what the schema wants (type, size, format, options), never the value sent. */
const SCHEMA_WORDED = new Set(["invalid_type", "too_big", "too_small", "invalid_format", "not_multiple_of", "invalid_value", "custom", "invalid_union"]);

/** Longest unknown key a message names ({@link isPlainKey}). */
const MAX_NAMED_KEY = 24;

/**
 * Whether an unknown key may be named in a message: at most 24 characters, a camelCase word
 * (`expiresAt`, `sha256`) or a lowercase snake/kebab word (`base_version`, `x-request-id`). Most
 * credential formats fail it (upper case first, mixed case with `_` or `-`, longer than 24).
 */
export function isPlainKey(key: string): boolean {
  return key.length <= MAX_NAMED_KEY && /^(?:[a-z][A-Za-z0-9]*|[a-z][a-z0-9_-]*)$/.test(key);
}

/** A key as messages name it: itself when {@link isPlainKey}, else "an unknown key". */
export function keyName(key: string): string {
  return isPlainKey(key) ? key : "an unknown key";
}

/** Most unknown keys one message names; the rest are counted (200 000 keys sent gave a 1.7 MB message, try16 F14). */
const MAX_NAMED_KEYS = 5;

/** "unknown key expiresAt", "unknown keys a, b", "an unknown key", "unknown key a and 2 other unknown keys". */
function unknownKeys(keys: readonly string[]): string {
  const named = keys.filter(isPlainKey).slice(0, MAX_NAMED_KEYS);
  const others = keys.length - named.length;
  if (named.length === 0) return others === 1 ? "an unknown key" : `${others} unknown keys`;
  const list = `unknown key${named.length === 1 ? "" : "s"} ${named.join(", ")}`;
  return others === 0 ? list : `${list} and ${others} other unknown key${others === 1 ? "" : "s"}`;
}

/** The text of one issue, never quoting the value or key sent (see the module comment). */
function issueText(code: string | undefined, message: string | undefined, keys: unknown): string {
  if (code === "unrecognized_keys") return Array.isArray(keys) ? unknownKeys(keys.map(String)) : "an unknown key";
  return code !== undefined && SCHEMA_WORDED.has(code) && message ? message : "invalid";
}

const MAX_PARTS = 5;

function joinPath(base: string, rel: readonly PropertyKey[] | undefined): string {
  const tail = (rel ?? []).map(String).join("/");
  return tail ? `${base.replace(/\/$/, "")}/${tail}` : base;
}

/** Flattened `"path: message"` lines of one issue at `path`, unions resolved to the closest branch. */
function flatten(path: string, message: string | undefined, code: string | undefined, errors: unknown, keys: unknown): string[] {
  if (code === "invalid_union" && Array.isArray(errors) && errors.length > 0 && errors.every(Array.isArray)) {
    const branches = (errors as ZodIssueLike[][]).map((branch) => branch.flatMap((i) => flatten(joinPath(path, i.path), i.message, i.code, i.errors, i.keys)));
    const usable = branches.filter((b) => b.length > 0);
    if (usable.length > 0) {
      const fewest = Math.min(...usable.map((b) => b.length));
      const closest = usable.filter((b) => b.length === fewest);
      const common = closest[0]!.filter((line) => closest.every((b) => b.includes(line)));
      const rest = [...new Set(closest.map((b) => b.filter((line) => !common.includes(line)).join("; ")).filter((s) => s.length > 0))];
      return rest.length > 0 ? [...common, rest.join(" or ")] : common;
    }
  }
  return [`${path}: ${issueText(code, message, keys)}`];
}

/** "invalid request: body/user: expected string; querystring/limit: too big" (at most 5 parts, then "and N more"). */
export function describeValidation(context: string | undefined, issues: readonly ValidationIssue[]): string {
  const where = context ?? "request";
  const lines = issues.flatMap((i) => flatten(`${where}${i.instancePath || ""}`, i.message, i.keyword, i.params?.errors, i.params?.keys));
  const parts = lines.slice(0, MAX_PARTS);
  if (lines.length > MAX_PARTS) parts.push(`and ${lines.length - MAX_PARTS} more`);
  return `invalid request: ${parts.join("; ")}`;
}
