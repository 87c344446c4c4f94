/**
 * Well-formed text: a string holding a lone UTF-16 surrogate (`"\ud800"` in JSON) cannot be
 * encoded as UTF-8, so it cannot be stored (PostgreSQL's jsonb refuses it; its text columns get
 * U+FFFD instead: the value would come back altered). The server refuses such a string in every
 * part of a request (body, path and query parameters, headers) with `invalid_utf8`, naming the field.
 */

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
