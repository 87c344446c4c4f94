/**
 * Fastify's reply serializer compiler for zod response schemas: each route's reply schema (a zod
 * type, or `{ properties: zodType }`) becomes a JSON Schema (zod's `toJSONSchema`, output side) and
 * is compiled once with fast-json-stringify, the serializer Fastify uses for JSON Schema routes.
 * A reply is then written by generated code instead of zod's `encode` (which walks the value,
 * checks every refinement and copies it) followed by `JSON.stringify`: ~10x less CPU per reply.
 *
 * What a reply holds is unchanged: only the schema's properties are written (as zod's objects
 * strip unknown keys), an optional property that is `undefined` is left out, union members are
 * picked by validating against each (fast-json-stringify's ajv) WITHOUT their refinements (see
 * {@link withoutRefinements}: by type, `const` discriminators, required and known properties), and a
 * value missing a required property or matching no union member throws, which the error handler
 * answers with 500 `internal_error`, as a zod serialization failure was. Unlike zod, a present value of the wrong
 * type is coerced, not refused: null in a non-nullable string field is written "", in a number
 * field 0; a number in a string field as its digits. Unlike zod too, refinements (patterns,
 * lengths, bounds) are not re-checked on the way out: the handlers build replies from stored,
 * validated values. A schema zod cannot express as JSON Schema, or fast-json-stringify cannot
 * compile, keeps fastify-type-provider-zod's zod serializer.
 */
import fastJsonStringify, { type Schema } from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import { createSerializerCompiler } from "fastify-type-provider-zod";
import { toJSONSchema, $ZodType } from "zod/v4/core";

type ReplySchema = $ZodType | { properties: $ZodType };

/** Keywords that only refine a value (fast-json-stringify writes a value the same with or without them). */
const REFINEMENTS = new Set([
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
]);

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "definitions", "$defs"]);

/**
 * Whether a union's members are told apart without their refinements: each of a distinct JSON
 * `type`, or all objects requiring one property whose `const` differs between them (zod's
 * discriminated unions).
 */
function distinctWithoutRefinements(members: readonly Record<string, unknown>[]): boolean {
  const types = members.map((m) => m.type);
  if (types.every((t) => typeof t === "string") && new Set(types).size === members.length) return true;
  const [first] = members;
  const props = (m: Record<string, unknown>) => (m.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.keys(props(first ?? {})).some((key) => {
    const consts = members.map((m) => (m.type === "object" && (m.required as string[] | undefined)?.includes(key) ? props(m)[key]?.const : undefined));
    return consts.every((c) => typeof c === "string" || typeof c === "number") && new Set(consts).size === members.length;
  });
}

/**
 * `schema` without the keywords that only refine a value (patterns, lengths, bounds), except in a
 * union whose members are not told apart without them. fast-json-stringify ignores them when it
 * writes a value, but checks them with ajv when it picks a union's member: on every batch result
 * (a union of four) that was most of the reply's serialization CPU (bench/README.md). Refinements
 * are not re-checked on the way out (module comment), so the union's pick is what changes: the
 * member a value's type and discriminator name, whatever its refinements.
 */
export function withoutRefinements(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRefinements);
  if (schema === null || typeof schema !== "object") return schema;
  const node = schema as Record<string, unknown>;
  for (const union of ["oneOf", "anyOf"]) {
    const members = node[union];
    if (Array.isArray(members) && !distinctWithoutRefinements(members as Record<string, unknown>[])) return schema;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (REFINEMENTS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutRefinements(sub)]));
    } else if (key === "const" || key === "enum" || key === "default" || key === "examples" || key === "required") {
      out[key] = value;
    } else {
      out[key] = withoutRefinements(value);
    }
  }
  return out;
}

/** The JSON Schema of a reply schema's output side, or null when zod cannot express it. */
export function replyJsonSchema(schema: ReplySchema): Schema | null {
  const zodType = schema instanceof $ZodType ? schema : schema.properties;
  if (!(zodType instanceof $ZodType)) return null;
  try {
    const { $schema: _dialect, ...json } = toJSONSchema(zodType, { target: "draft-7", io: "output", unrepresentable: "throw" }) as Record<string, unknown>;
    return json as unknown as Schema;
  } catch {
    return null;
  }
}

/**
 * A new serializer compiler (one per app: `app.setSerializerCompiler(createReplySerializerCompiler())`).
 * A schema is compiled on its route's first reply with it, once per app for every route and status
 * that share it (the error body), so building an app stays as fast as with zod's serializer.
 * @returns per route and status, `(value) => string`: the reply's JSON text; throws when the value
 *   lacks a required property or matches no member of a union (see the module comment).
 */
export function createReplySerializerCompiler(): FastifySerializerCompiler<ReplySchema> {
  const zodSerializer = createSerializerCompiler();
  // Per zod schema: its fast-json-stringify function, or null when it has none (zod serializes).
  const compiled = new Map<unknown, ((value: unknown) => string) | null>();
  const fastSerializer = (schema: ReplySchema): ((value: unknown) => string) | null => {
    const key = schema instanceof $ZodType ? schema : schema.properties;
    if (compiled.has(key)) return compiled.get(key)!;
    let serialize: ((value: unknown) => string) | null = null;
    const json = replyJsonSchema(schema);
    try {
      serialize = json ? fastJsonStringify(withoutRefinements(json) as Schema) : null;
    } catch {
      serialize = null;
    }
    compiled.set(key, serialize);
    return serialize;
  };
  return (route) => {
    let serialize: ((value: unknown) => string) | undefined;
    return (value) => {
      serialize ??= fastSerializer(route.schema) ?? zodSerializer(route);
      return serialize(value);
    };
  };
}
