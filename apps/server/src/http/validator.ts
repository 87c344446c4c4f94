/**
 * The schema validator of every route part (body, querystring, params, headers), in place of
 * fastify-type-provider-zod's: one zod parse checks the request and finds the strings that are not
 * well-formed UTF-16 (every string field of the protocol is a `Text`; a lone surrogate sent for a
 * number, an enum or an unknown key fails there too). Such a string is 400 `invalid_utf8` with
 * `details.field` naming it (`body/clientId`, `querystring/path`); any other fault is Fastify's
 * validation error, 400 `invalid_request` naming the fields (plugins/errors.ts).
 *
 * `perItem` names a top-level array of the body whose items are answered one by one (the batch's
 * `operations`): an item failing for ill-formed strings alone does not refuse the request. It is
 * parsed again with U+FFFD in their place and marked (errors/ill-formed-item.ts): the route
 * rejects it alone. A request whose items fail otherwise is refused whole, as before.
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { fieldName, illFormedIssue, illFormedMessage, onlyIllFormed, type FieldStep } from "@teammem/protocol";
import { safeParse, type $ZodIssue, type $ZodType } from "zod/v4/core";
import { markIllFormed } from "../errors/ill-formed-item.js";
import { Refusal } from "../errors/refusal.js";
import { isPlainKey } from "../errors/validation-message.js";

type Result = { value: unknown } | { error: Error | FastifySchemaValidationError[] };

/**
 * The `invalid_utf8` refusal of the ill-formed string at `at` (`["body", "clientId"]`). A key on
 * the way that is not a plain identifier (an ill-formed key itself, or any key the client made up)
 * is named "(an unknown key)", never quoted (errors/validation-message.ts `isPlainKey`).
 */
export function illFormedRefusal(at: readonly FieldStep[]): Refusal {
  const field = fieldName(at.map((step) => (typeof step === "string" && !isPlainKey(step) ? "(an unknown key)" : step)));
  return new Refusal("invalid_utf8", illFormedMessage(field), { field });
}

/** zod issues as Fastify's validation errors (the shape fastify-type-provider-zod gives them). */
function validationErrors(issues: readonly $ZodIssue[]): FastifySchemaValidationError[] {
  return issues.map(({ code, path, message, ...rest }) => ({
    keyword: code,
    instancePath: `/${path.join("/")}`,
    schemaPath: `#/${path.join("/")}/${code}`,
    message,
    params: { ...rest },
  }));
}

/** A copy of `value` with every string and key made well-formed (lone surrogates → U+FFFD); iterative, so any depth. */
function wellFormedCopy(value: unknown): unknown {
  const root: { v?: unknown } = {};
  const stack: [unknown, Record<PropertyKey, unknown>, PropertyKey][] = [[value, root, "v"]];
  while (stack.length > 0) {
    const [src, holder, key] = stack.pop()!;
    if (Array.isArray(src)) {
      const copy: unknown[] = new Array(src.length);
      holder[key] = copy;
      src.forEach((item, i) => stack.push([item, copy as unknown as Record<PropertyKey, unknown>, i]));
    } else if (src !== null && typeof src === "object") {
      const copy: Record<string, unknown> = {};
      holder[key] = copy;
      for (const [k, item] of Object.entries(src)) stack.push([item, copy, k.toWellFormed()]);
    } else holder[key] = typeof src === "string" ? src.toWellFormed() : src;
  }
  return root.v;
}

/**
 * The result for a body whose failed parse (`issues`) may be items of `data[key]` holding ill-formed
 * strings and nothing else wrong; null when some issue lies outside those items, or an item is
 * wrong otherwise.
 */
function perItemResult(schema: $ZodType, data: unknown, issues: readonly $ZodIssue[], key: string): Result | null {
  const items = (data as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(items)) return null;
  const byItem = new Map<number, $ZodIssue[]>();
  for (const issue of issues) {
    const [k, i] = issue.path;
    if (k !== key || typeof i !== "number") return null;
    byItem.set(i, [...(byItem.get(i) ?? []), { ...issue, path: issue.path.slice(2) }]);
  }
  const marks = new Map<number, FieldStep[]>();
  for (const [i, itemIssues] of byItem) {
    const at = onlyIllFormed(itemIssues, items[i]);
    if (!at) return null;
    marks.set(i, at);
  }
  // Rare (a batch holding a lone surrogate): the second parse costs nothing on other requests.
  const again = safeParse(schema, { ...(data as object), [key]: items.map((item, i) => (marks.has(i) ? wellFormedCopy(item) : item)) });
  if (!again.success) return { error: validationErrors(again.error.issues) };
  const parsed = (again.data as Record<string, object[]>)[key]!;
  for (const [i, at] of marks) {
    const sent = items[i] as { opId?: unknown; path?: unknown };
    markIllFormed(parsed[i]!, { refusal: illFormedRefusal(at), opId: String(sent.opId), path: String(sent.path) });
  }
  return { value: again.data };
}

/** The validator compiler (Fastify's `setValidatorCompiler`, or a route's `validatorCompiler` with `perItem`). */
export function wellFormedValidator<S = $ZodType>(perItem?: string): FastifySchemaCompiler<S> {
  return ({ schema: partSchema, httpPart }) =>
    (data: unknown): Result => {
      const schema = partSchema as $ZodType; // Fastify types a route's compiler with the whole route schema; it is given each part's
      const parsed = safeParse(schema, data);
      if (parsed.success) return { value: parsed.data };
      const part = httpPart ?? "request";
      const issues = parsed.error.issues;
      if (perItem && part === "body") {
        const result = perItemResult(schema, data, issues, perItem);
        if (result) return result;
        // An ill-formed string outside the items refuses the request; inside one, so do its other faults.
        const outside = issues.filter((issue) => issue.path[0] !== perItem || typeof issue.path[1] !== "number");
        const at = illFormedIssue(outside, data);
        return { error: at ? illFormedRefusal([part, ...at]) : validationErrors(issues) };
      }
      const at = illFormedIssue(issues, data);
      return { error: at ? illFormedRefusal([part, ...at]) : validationErrors(issues) };
    };
}
