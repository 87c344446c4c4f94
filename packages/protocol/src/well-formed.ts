/**
 * Well-formed text: a string holding a lone UTF-16 surrogate (`"\ud800"` in JSON) cannot be
 * encoded as UTF-8, so it cannot be stored (PostgreSQL's jsonb refuses it; its text columns get
 * U+FFFD instead: the value would come back altered). The server refuses such a string in every
 * part of a request (body, path and query parameters, headers) with `invalid_utf8`, naming the field:
 * every string field of the messages is a {@link Text}, so the schema's one pass finds it, and
 * {@link illFormedIssue} tells which of a failed parse's issues come from one.
 */
import { z } from "zod";

/** The message of {@link Text}'s check (the server's `invalid_utf8` replies say it with the field: {@link illFormedMessage}). */
const ILL_FORMED = "not valid Unicode text: it holds a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)";

/**
 * A string that is well-formed UTF-16 (no lone surrogate): the base of every string field of the
 * protocol's messages; chain other checks after it (`Text.min(1).max(4096)`). Its issue does not
 * abort the parse: in a union, a branch failing for an ill-formed string alone must stay a
 * candidate beside the others (zod returns the issues of the one branch that did not abort, and
 * that one could be failing for another reason), so {@link onlyIllFormed} sees every branch.
 */
export const Text = z.string().refine((s) => s.isWellFormed(), { error: ILL_FORMED });

/** One step of a field's location: an object key or an array index. */
export type FieldStep = string | number;

/**
 * The location of the first string in `value` (a parsed JSON value: objects, arrays, strings,
 * numbers...) that is not well-formed UTF-16, object keys included, or null when there is none.
 * `[]` is `value` itself; `["operations", 0, "path"]` is `value.operations[0].path`; a bad key
 * is reported as the location of its property, the key's lone surrogates replaced by U+FFFD (so the
 * location can be sent back as text). Walks without recursion, so any nesting depth is safe, and
 * visits each node once: cost linear in the value's size (a body nested 100,000 deep included).
 */
export function findIllFormedString(value: unknown): FieldStep[] | null {
  // Each pending node points at its parent (no path copied per node: linear even when deep).
  interface Pending {
    node: unknown;
    step: FieldStep | null;
    parent: Pending | null;
  }
  const location = (p: Pending | null, last?: FieldStep): FieldStep[] => {
    const out: FieldStep[] = last === undefined ? [] : [last];
    for (let at = p; at !== null && at.step !== null; at = at.parent) out.push(at.step);
    return out.reverse();
  };
  const stack: Pending[] = [{ node: value, step: null, parent: null }];
  while (stack.length > 0) {
    const p = stack.pop()!;
    const node = p.node;
    if (typeof node === "string") {
      if (!node.isWellFormed()) return location(p);
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], step: i, parent: p });
    } else if (node !== null && typeof node === "object") {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (!key.isWellFormed()) return location(p, key.toWellFormed());
        stack.push({ node: (node as Record<string, unknown>)[key], step: key, parent: p });
      }
    }
  }
  return null;
}

/** Longest field name {@link fieldName} gives (a hostile body can nest 100,000 deep). */
const MAX_FIELD_NAME = 200;

/**
 * A field's location as the server's messages name it: `operations/0/path` (`""` for the value
 * itself); over 200 characters, its start and end around `/…/`.
 */
export function fieldName(at: readonly FieldStep[]): string {
  const name = at.map(String).join("/");
  if (name.length <= MAX_FIELD_NAME) return name;
  const half = MAX_FIELD_NAME / 2 - 2;
  return `${name.slice(0, half)}/…/${name.slice(-half)}`;
}

/** The message of an `invalid_utf8` refusal of the string at `field` (never quotes the value). */
export function illFormedMessage(field: string): string {
  return `${field} is not valid Unicode text: it holds a lone UTF-16 surrogate (\\ud800-\\udfff without its pair), which UTF-8 cannot encode`;
}

/** A zod issue as {@link illFormedIssue} reads it (the fields it needs of `z.core.$ZodIssue`). */
interface IssueLike {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly keys?: readonly string[];
  readonly errors?: readonly (readonly IssueLike[])[];
  readonly issues?: readonly IssueLike[];
}

const steps = (path: readonly PropertyKey[]): FieldStep[] => path.map((p) => (typeof p === "number" ? p : String(p)));

/**
 * The location of the ill-formed string at `path` of `input`: a key on the way, the value there,
 * or with `walk`, any string or key inside the value there (a part the schema refused whole: an
 * object where it wants an array...); null when there is none.
 */
function illFormedAt(input: unknown, path: readonly PropertyKey[], walk: boolean): FieldStep[] | null {
  let node = input;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    if (typeof step === "string" && !step.isWellFormed()) return [...steps(path.slice(0, i)), step.toWellFormed()];
    if (node === null || typeof node !== "object") return null;
    node = (node as Record<PropertyKey, unknown>)[step];
  }
  if (typeof node === "string") return node.isWellFormed() ? null : steps(path);
  const inside = walk ? findIllFormedString(node) : null;
  return inside ? [...steps(path), ...inside] : null;
}

/**
 * The ill-formed location behind `issue` (paths relative to `base`), or null when another fault
 * caused it. `any`: an ill-formed string anywhere in what the issue refused. `only`: the issue
 * would not be there with well-formed strings.
 */
function sourceOf(issue: IssueLike, input: unknown, base: readonly PropertyKey[], mode: "any" | "only"): FieldStep[] | null {
  const path = [...base, ...issue.path];
  const within = (issues: readonly IssueLike[]) => (mode === "any" ? illFormedIssue(issues, input, path) : onlyIllFormed(issues, input, path));
  if (issue.code === "invalid_union" && issue.errors && issue.errors.length > 0) {
    // Any branch naming one (any); a branch failing for nothing else (only).
    for (const branch of issue.errors) {
      const at = within(branch);
      if (at) return at;
    }
    return illFormedAt(input, path, false);
  }
  if (issue.code === "unrecognized_keys" && issue.keys) {
    const bad = issue.keys.filter((k) => !k.isWellFormed());
    if (mode === "only") return bad.length > 0 && bad.length === issue.keys.length ? [...steps(path), bad[0]!.toWellFormed()] : null;
    if (bad.length > 0) return [...steps(path), bad[0]!.toWellFormed()];
    // A known key of another union branch (`delete` beside `content`), or any unknown one: its value.
    for (const key of issue.keys) {
      const at = illFormedAt(input, [...path, key], true);
      if (at) return at;
    }
    return null;
  }
  if (issue.issues && issue.issues.length > 0) {
    const at = within(issue.issues);
    if (at) return at;
  }
  return illFormedAt(input, path, mode === "any");
}

/**
 * The location of the first ill-formed string (value or object key) that made parsing `input`
 * fail with `issues` (a `ZodError`'s), or null when none did: the string a {@link Text} field
 * refused, one sent where the schema wants a number, an enum value or a known key, and one inside
 * a part the schema refused whole (an object where it wants an array). Looks only along the
 * issues' paths (inside a union, every branch's) and inside the parts they refused: the cost of
 * a request that fails anyway.
 * Keys are given with their lone surrogates replaced by U+FFFD, as {@link findIllFormedString} does.
 */
export function illFormedIssue(issues: readonly IssueLike[], input: unknown, base: readonly PropertyKey[] = []): FieldStep[] | null {
  for (const issue of issues) {
    const at = sourceOf(issue, input, base, "any");
    if (at) return at;
  }
  return null;
}

/**
 * Like {@link illFormedIssue}, but only when every issue comes from an ill-formed string (a union:
 * when some branch fails for nothing else), so the value would pass with well-formed strings:
 * the location of the first, or null.
 */
export function onlyIllFormed(issues: readonly IssueLike[], input: unknown, base: readonly PropertyKey[] = []): FieldStep[] | null {
  let first: FieldStep[] | null = null;
  for (const issue of issues) {
    const at = sourceOf(issue, input, base, "only");
    if (!at) return null;
    first ??= at;
  }
  return first;
}
