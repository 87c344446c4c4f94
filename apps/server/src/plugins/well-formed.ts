/**
 * Refuses, for every route, a request carrying a string that is not well-formed UTF-16 (a lone
 * surrogate, `"\ud800"` in a JSON body): such a string cannot be encoded as UTF-8, so PostgreSQL
 * refuses it (jsonb) or stores U+FFFD in its place (text). Checked in `preValidation`, before the
 * route's schema: headers, path parameters, query parameters and the body, object keys included.
 * The refusal is 400 `invalid_utf8` with `details.field` naming the field as validation messages
 * do (`body/clientId`, `querystring/path`, `params/namespace`, `headers/origin`); the value is
 * never echoed.
 *
 * A route whose body holds independent items answered one by one (the batch's `operations`) names
 * that array in its config (`wellFormedPerItem: "operations"`): the array's items are left to the
 * route, which rejects each ill-formed item on its own (store/apply-operation.ts), so one bad
 * operation does not refuse its batch.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { fieldName, findIllFormedString, illFormedMessage, type FieldStep } from "@teammem/protocol";
import { Refusal } from "../errors/refusal.js";

/** The first ill-formed string of `request`, as `part/field/...`, or null. */
function illFormedField(request: FastifyRequest): string | null {
  const perItem = request.routeOptions.config.wellFormedPerItem;
  const body = request.body;
  const parts: [string, unknown][] = [
    ["headers", request.headers],
    ["params", request.params],
    ["querystring", request.query],
    [
      "body",
      perItem && body !== null && typeof body === "object" && !Array.isArray(body) && Array.isArray((body as Record<string, unknown>)[perItem])
        ? { ...(body as Record<string, unknown>), [perItem]: [] }
        : body,
    ],
  ];
  for (const [part, value] of parts) {
    const at: FieldStep[] | null = findIllFormedString(value);
    if (at) return fieldName([part, ...at]);
  }
  return null;
}

async function wellFormed(app: FastifyInstance): Promise<void> {
  app.addHook("preValidation", async (request) => {
    const field = illFormedField(request);
    if (field) throw new Refusal("invalid_utf8", illFormedMessage(field), { field });
  });
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** A top-level array of the body whose items the route checks for ill-formed strings itself, one by one (see plugins/well-formed.ts). */
    wellFormedPerItem?: string;
  }
}

export default fp(wellFormed, { name: "teammem-well-formed" });
