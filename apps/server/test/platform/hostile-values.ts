/**
 * Hostile requests derived from the OpenAPI document the server publishes (`/docs/json`): for one
 * route and one valid sample request, every variant that puts a hostile value into one field
 * (a body property at any depth, a query parameter, a path parameter) and keeps the rest valid.
 * Hostile means: a NUL character, an over-long string, a lone surrogate, an empty string, integers past the
 * database's columns (2^31) and past JavaScript's safe integers (2^53), and every
 * JSON type the field does not have; and a request header holding a lone surrogate. Also a canary
 * (a password-like string no scanner rule knows) as each field's value, as each parameter's value,
 * as an unknown key of each object and as an unknown query parameter: no error reply may quote it
 * (try14 F16). Used by the route walk (route-walk.test.ts).
 */
import { randomBytes } from "node:crypto";

/** The part of an OpenAPI 3 document the walk reads. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

export interface HostileRequest {
  /** e.g. `body.operations[0].path = NUL string`. */
  what: string;
  url: string;
  payload?: unknown;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Set when the variant puts a lone surrogate into one field: the field as the server names it
   * (`body/operations/0/path`, `headers/origin`), which must be refused with `invalid_utf8`.
   */
  illFormedField?: string;
  /**
   * Text of what this variant sent (a string value or an unknown key, as it appears in JSON; a long
   * one's first 64 characters) that no error reply may contain.
   */
  echo: string[];
}

/**
 * A made-up secret for this run: mixed case, digits and `_`, so no message may name it even as a
 * key (errors/validation-message.ts names only plain identifiers); matched by no scanner rule, so
 * no redaction hides it either. Built at run time.
 */
export const CANARY = `Zq7${randomBytes(9).toString("hex")}_Pw${randomBytes(3).toString("hex").toUpperCase()}`;

/** The texts of `value` whose echo the walk looks for: strings of 8 or more characters, as JSON writes them. */
function echoOf(value: unknown): string[] {
  if (typeof value !== "string" || value.length < 8) return [];
  return [JSON.stringify(value.slice(0, 64)).slice(1, -1)];
}

const LONG = "x".repeat(70_000);
const LONE_SURROGATE = "\ud800";
/** Values for a JSON body field: wrong types and hostile strings. */
const BODY_VALUES: [string, unknown][] = [
  ["NUL string", "\u0000"],
  ["string with NUL", "team/a\u0000b.md"],
  ["70,000-character string", LONG],
  ["lone surrogate", LONE_SURROGATE],
  ["lone low surrogate inside text", "team/a\udc00b.md"],
  ["empty string", ""],
  ["-1", -1],
  ["1.5", 1.5],
  ["1e300", 1e300],
  ["2^31 (past a 4-byte integer column)", 2 ** 31],
  ["2^53 (past a safe JavaScript integer)", 2 ** 53],
  ["true", true],
  ["null", null],
  ["object", {}],
  ["array", []],
  ["array of null", [null]],
  ["canary", CANARY],
];
/** Values for a query or path parameter (already percent-encoded where needed). */
const PARAM_VALUES: [string, string][] = [
  ["%00", "%00"],
  ["a%00b", "a%00b"],
  ["5,000 characters", "y".repeat(5000)],
  ["invalid UTF-8 %FF", "%FF"],
  ["lone surrogate %ED%A0%80", "%ED%A0%80"],
  ["empty", ""],
  ["-1", "-1"],
  ["1.5", "1.5"],
  ["1e300", "1e300"],
  ["2^31 (past a 4-byte integer column)", "2147483648"],
  ["2^53 (past a safe JavaScript integer)", "9007199254740992"],
  ["20 digits", "99999999999999999999"],
  ["not a number", "abc"],
  ["dot-dot", "%2E%2E"],
  ["canary", CANARY],
];

/** OpenAPI path (`/v1/namespaces/{namespace}/batch`) of a Fastify route path (`/v1/namespaces/:namespace/batch`). */
export const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/** Every JSON path (as keys and 0 for array items) a body schema describes, inner nodes included. */
function fieldPaths(schema: Schema | undefined, prefix: (string | 0)[] = [], depth = 0): (string | 0)[][] {
  if (!schema || depth > 6) return [];
  const out: (string | 0)[][] = [];
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) out.push(...fieldPaths(alt, prefix, depth + 1));
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    out.push([...prefix, key]);
    out.push(...fieldPaths(sub, [...prefix, key], depth + 1));
  }
  if (schema.items) {
    out.push([...prefix, 0]);
    out.push(...fieldPaths(schema.items, [...prefix, 0], depth + 1));
  }
  const seen = new Set<string>();
  return out.filter((p) => !seen.has(JSON.stringify(p)) && seen.add(JSON.stringify(p)));
}

/** A deep copy of `base` with `value` at `path`, creating objects and arrays on the way. */
function withValue(base: unknown, path: (string | 0)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (head === 0) {
    const arr = Array.isArray(base) ? [...(base as unknown[])] : [];
    arr[0] = withValue(arr[0], rest, value);
    return arr;
  }
  const obj = base && typeof base === "object" && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  obj[head!] = withValue(obj[head!], rest, value);
  return obj;
}

/** The echo texts of a parameter value (sent percent-encoded where needed): the long and the canary ones. */
const paramEcho = (value: string) => (/^(?=.*[A-Za-z])[A-Za-z0-9_]{8,}$/.test(value) ? [value.slice(0, 64)] : []);

const show = (path: (string | 0)[]) => path.map((p) => (p === 0 ? "[0]" : `.${p}`)).join("");
/** The server's name of a body field (`body/operations/0/path`). */
const bodyField = (path: (string | 0)[]) => ["body", ...path].join("/");
const illFormed = (value: unknown) => typeof value === "string" && !value.isWellFormed();

/**
 * The hostile variants of one sample request of route `method route` (Fastify pattern), from the
 * route's OpenAPI operation: each body field, each query parameter (and the parameter repeated),
 * each path parameter.
 * @throws Error when the document has no such operation and the route takes a body.
 */
export function hostileRequests(doc: OpenApiDoc, method: string, route: string, sample: { url: string; payload?: unknown }): HostileRequest[] {
  const path = openApiPath(route);
  const alternate = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
  const m = method.toLowerCase();
  // A route without a documented operation (the WebSocket upgrade) still has its path and query walked.
  const operation = doc.paths[path]?.[m] ?? doc.paths[alternate]?.[m] ?? (sample.payload === undefined ? {} : undefined);
  if (!operation) throw new Error(`no OpenAPI operation for ${method} ${route}, which takes a body`);
  const out: HostileRequest[] = [];
  const [pathPart, queryPart = ""] = sample.url.split("?") as [string, string?];

  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  if (bodySchema) {
    const keyed = new Set<string>();
    for (const path of fieldPaths(bodySchema)) {
      for (const [name, value] of BODY_VALUES) {
        out.push({
          what: `body${show(path)} = ${name}`,
          url: sample.url,
          payload: withValue(sample.payload ?? {}, path, value),
          ...(illFormed(value) ? { illFormedField: bodyField(path) } : {}),
          echo: echoOf(value),
        });
      }
      // A key with a lone surrogate beside the field (once per object); named with U+FFFD in its place.
      const parent = path.slice(0, -1);
      if (!keyed.has(JSON.stringify(parent))) {
        keyed.add(JSON.stringify(parent));
        // Named "(an unknown key)": a key that is not a plain identifier is never quoted.
        out.push({ what: `body${show(parent)} key = lone surrogate`, url: sample.url, payload: withValue(sample.payload ?? {}, [...parent, `k${LONE_SURROGATE}`], 1), illFormedField: bodyField([...parent, "(an unknown key)"]), echo: [] });
        out.push({ what: `body${show(parent)} key = canary`, url: sample.url, payload: withValue(sample.payload ?? {}, [...parent, CANARY], CANARY), echo: [CANARY] });
      }
    }
    for (const [name, value] of BODY_VALUES) out.push({ what: `body = ${name}`, url: sample.url, payload: value, ...(illFormed(value) ? { illFormedField: "body" } : {}), echo: echoOf(value) });
  }
  // Headers arrive from a socket as Latin-1 (never a surrogate); inject can send one, as a later front end might.
  for (const header of ["origin", "x-teammem-probe"]) {
    out.push({ what: `header ${header} = lone surrogate`, url: sample.url, payload: sample.payload, headers: { [header]: `a${LONE_SURROGATE}` }, illFormedField: `headers/${header}`, echo: [] });
  }
  out.push({ what: `?${CANARY}=canary (an unknown query parameter)`, url: `${pathPart}?${queryPart ? `${queryPart}&` : ""}${CANARY}=${CANARY}`, payload: sample.payload, echo: [CANARY] });

  const query = new URLSearchParams(queryPart);
  for (const p of (operation.parameters ?? []).filter((x) => x.in === "query")) {
    for (const [name, value] of PARAM_VALUES) {
      const q = new URLSearchParams(query);
      q.delete(p.name);
      const rest = q.toString();
      out.push({ what: `?${p.name}=${name}`, url: `${pathPart}?${rest ? `${rest}&` : ""}${p.name}=${value}`, payload: sample.payload, echo: paramEcho(value) });
    }
    out.push({ what: `?${p.name} twice`, url: `${pathPart}?${queryPart}&${p.name}=1&${p.name}=2`, payload: sample.payload, echo: [] });
  }

  const patternSegments = route.split("/");
  const urlSegments = pathPart.split("/");
  patternSegments.forEach((segment, i) => {
    if (!segment.startsWith(":")) return;
    for (const [name, value] of PARAM_VALUES) {
      if (value === "") continue; // an empty segment is another route
      const segs = [...urlSegments];
      segs[i] = value;
      out.push({ what: `${segment}=${name}`, url: `${segs.join("/")}${queryPart ? `?${queryPart}` : ""}`, payload: sample.payload, echo: paramEcho(value) });
    }
  });
  return out;
}
