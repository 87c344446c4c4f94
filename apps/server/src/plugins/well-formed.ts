/**
 * Refuses, for every route, a request carrying a string that is not well-formed UTF-16 (a lone
 * surrogate, `"\ud800"` in a JSON body) where its schema does not look: request headers (no route
 * has a header schema; inject can send one, as a front end might), and path parameters, query
 * parameters and a body of a route without a schema for them. Where a route has one, the zod parse
 * finds such strings in the same pass as the rest (http/validator.ts). Checked in `preValidation`;
 * object keys included. The refusal is 400 `invalid_utf8` with `details.field` naming the field as
 * validation messages do (`headers/origin`, `querystring/path`); the value is never echoed.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { findIllFormedString, type FieldStep } from "@teammem/protocol";
import { illFormedRefusal } from "../http/validator.js";

/** The request's parts that no schema of its route validates, with their names in messages. */
function unvalidatedParts(request: FastifyRequest): [string, unknown][] {
  const schema = request.routeOptions.schema ?? {};
  const parts: [string, unknown][] = [["headers", request.headers]];
  if (!schema.params) parts.push(["params", request.params]);
  if (!schema.querystring) parts.push(["querystring", request.query]);
  if (!schema.body) parts.push(["body", request.body]);
  return parts;
}

async function wellFormed(app: FastifyInstance): Promise<void> {
  app.addHook("preValidation", async (request) => {
    for (const [part, value] of unvalidatedParts(request)) {
      const at: FieldStep[] | null = findIllFormedString(value);
      if (at) throw illFormedRefusal([part, ...at]);
    }
  });
}

export default fp(wellFormed, { name: "teammem-well-formed" });
