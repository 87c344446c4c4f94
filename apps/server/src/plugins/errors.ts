import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { codeForStatus, ERRORS, type ErrorCode, type ErrorSpec } from "@teammem/protocol";
import { refusalForDatabaseError, refusalForUnstorableText } from "../errors/database-errors.js";
import { Refusal } from "../errors/refusal.js";
import { describeValidation } from "../errors/validation-message.js"; // names the field(s), also inside union bodies
import { jsonShapeFaultAt, MAX_JSON_DEPTH, MAX_JSON_ITEMS } from "../http/json-shape.js";

export interface ErrorsOptions {
  /** Largest accepted body in bytes; echoed as `details.limit` in `body_too_large`. */
  maxBodyBytes: number;
  /** Most operations per batch; echoed as `details.limit` in `batch_too_large` when a batch's `operations` is over the item limit too. */
  maxOperationsPerBatch?: number;
}

/** The batch route, whose top-level `operations` array has a limit of its own. */
const BATCH_ROUTE = "/v1/namespaces/:namespace/batch";

/** Fastify's own 4xx errors (content-type parsing, body size...) mapped onto our stable codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "body_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_TYPE: "unsupported_media_type",
  FST_ERR_CTP_EMPTY_TYPE: "unsupported_media_type",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
};

/** The message of a Fastify 4xx error by our code (Fastify's own text can quote the request). */
const MESSAGES: Partial<Record<ErrorCode, string>> = {
  unsupported_media_type: "request bodies must be sent as application/json",
};
const MALFORMED = "the request is malformed";

/** Fields of an error safe to log: never the request body, never pg's `detail` (it can quote values). */
function loggableError(err: FastifyError): Record<string, unknown> {
  return { type: err.name, code: err.code, message: err.message, stack: err.stack };
}

/**
 * Sends `refusal` with the status its code has in the registry, and `Retry-After` (whole seconds,
 * from `details.retryAfterMs`) when the registry says the code carries one.
 */
function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  const spec: ErrorSpec = ERRORS[refusal.code];
  const retryAfterMs = Number(refusal.details?.["retryAfterMs"]);
  if (spec.retryAfter && Number.isFinite(retryAfterMs)) reply.header("retry-after", Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return reply.status(spec.http ?? 500).send(refusal.toBody());
}

/** Fastify's (or a plugin's) own error as a refusal, or null when it is not the client's fault. */
function fastifyRefusal(err: FastifyError, maxBodyBytes: number): Refusal | null {
  if (hasZodFastifySchemaValidationErrors(err) || err.validation) {
    return new Refusal("invalid_request", describeValidation(err.validationContext, err.validation ?? []));
  }
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped === "body_too_large") {
    return new Refusal(mapped, `the request body exceeds ${maxBodyBytes} bytes`, { limit: maxBodyBytes });
  }
  const status = err.statusCode ?? 500;
  const code = mapped ?? (status >= 400 && status < 500 && !isResponseSerializationError(err) ? codeForStatus(status) : null);
  return code ? new Refusal(code, MESSAGES[code] ?? MALFORMED) : null;
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs, answered in
 * our error format instead of Fastify's own body (which quotes the whole URL, and a namespace name
 * in it can hold a credential):
 * - a path parameter longer than `maxParamLength` characters (as sent, percent-encoded) → 400
 *   `invalid_request` with `details.limit`;
 * - a URL whose percent-encoding does not decode → 400 `invalid_request`.
 */
export function frameworkErrors(maxParamLength: number) {
  return (err: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    sendRefusal(
      reply,
      err.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new Refusal("invalid_request", `a path parameter of the URL is longer than ${maxParamLength} characters`, { limit: maxParamLength })
        : new Refusal("invalid_request", "the request URL is malformed"),
    );
}

/**
 * The server's error contract. Every error reply is `{ code, message, details?, findings? }` with the
 * status (and `Retry-After`, where the registry says so) that the protocol registry gives its code:
 * - a {@link Refusal} → its own code, details and findings;
 * - zod schema validation → 400 `invalid_request` naming the failing field(s);
 * - body over the limit → 413 `body_too_large` with `details.limit` (bytes);
 * - malformed JSON, JSON nested deeper than {@link MAX_JSON_DEPTH} levels or with an array or object
 *   of more than {@link MAX_JSON_ITEMS} items (refused before it is parsed and validated: both are
 *   slow to parse or to check item by item) → 400 `invalid_request` (a batch's `operations` over it:
 *   413 `batch_too_large`, as any count over the batch limit); invalid UTF-8 in a JSON body → 400 `invalid_utf8`;
 * - a content type other than application/json, or a body sent with a `Content-Encoding` (gzip...)
 *   → 415 `unsupported_media_type` (the message names the encoding);
 * - unknown path → 404 `not_found` ("no route GET at this path": the path is never quoted); a known path with a method none of its routes has → 405
 *   `method_not_allowed` with `Allow` listing the methods its routes have (HEAD included for a GET
 *   route, as Fastify serves it: exposeHeadRoutes): each method learnt from the `onRoute` hook is
 *   looked up for the path in Fastify's router (`findRoute`);
 * - a transient database failure (lock or statement timeout, serialization failure, connection
 *   lost or refused: errors/database-errors.ts) → 503 `database_busy` with Retry-After; the
 *   database's disk full (SQLSTATE 53100, "No space left on device") → 503 `storage_full` with Retry-After;
 * - a text value the database cannot store (NUL) → 400 `invalid_request` (details.reason `nul_character`);
 * - anything else (also a refusal with a stream-only code) → 500 `internal_error` with a generic
 *   message; the log keeps the error (never the body).
 * Also replaces Fastify's body parsers with one strict UTF-8 JSON parser. Register before any
 * route, so the `onRoute` hook sees them all.
 */
async function errors(app: FastifyInstance, opts: ErrorsOptions): Promise<void> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const rejectProto = (key: string, value: unknown) => {
    if (key === "__proto__") throw new Refusal("invalid_request", "the body contains a forbidden key __proto__");
    return value;
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) {
      return done(new Refusal("unsupported_media_type", "request bodies must be sent as application/json in UTF-8"), undefined);
    }
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
    if (encoding && encoding !== "identity") {
      const named = /^[a-z0-9-]{1,20}$/.test(encoding) ? encoding : "this one";
      return done(new Refusal("unsupported_media_type", `request bodies must be sent uncompressed; Content-Encoding ${named} is not accepted`), undefined);
    }
    const raw = body as Buffer;
    if (raw.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      return done(new Refusal("invalid_utf8", "the request body is not valid UTF-8"), undefined);
    }
    const at = jsonShapeFaultAt(text, MAX_JSON_DEPTH, MAX_JSON_ITEMS);
    const fault = at?.fault;
    if (fault === "too_many_items" && at!.depth === 2 && at!.array && opts.maxOperationsPerBatch !== undefined && req.routeOptions.url === BATCH_ROUTE) {
      // Over the item limit is over the batch limit too: one code for every count over it (try17 L1).
      const limit = opts.maxOperationsPerBatch;
      return done(new Refusal("batch_too_large", `a batch may hold at most ${limit} operations, this one has more than ${MAX_JSON_ITEMS}`, { limit }), undefined);
    }
    if (fault === "too_deep") {
      return done(new Refusal("invalid_request", `the request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    if (fault === "too_many_items") {
      return done(new Refusal("invalid_request", `an array or object of the request body holds more than ${MAX_JSON_ITEMS} items`), undefined);
    }
    try {
      done(null, text.includes('"__proto__"') ? JSON.parse(text, rejectProto) : JSON.parse(text));
    } catch (err) {
      if (err instanceof Refusal) return done(err, undefined);
      done(new Refusal("invalid_request", "the request body is not valid JSON"), undefined);
    }
  });

  // Every method some route has (HEAD included: Fastify reports the HEAD routes it adds for GET).
  const routeMethods = new Set<string>();
  app.addHook("onRoute", (route) => {
    for (const m of [route.method].flat()) routeMethods.add(m.toUpperCase());
  });
  /** The methods some route serves at `path`, asked of Fastify's own router (same params, slashes, encoding). */
  const allowedAt = (path: string): string[] => [...routeMethods].filter((method) => app.findRoute({ method, url: path }) !== null).sort();

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allow = allowedAt(path);
    // Empty: an unknown path. Holding the request's own method: a route's constraints did not match; not a 405 either.
    // The path is not quoted: a namespace or entry name in it can hold a credential (a route's own
    // checks refuse such names; an unknown path never reaches them).
    const method = /^[A-Z]{1,16}$/.test(request.method) ? request.method : "this method";
    if (allow.length === 0 || allow.includes(request.method)) return sendRefusal(reply, new Refusal("not_found", `no route ${method} at this path`));
    reply.header("allow", allow.join(", "));
    return sendRefusal(reply, new Refusal("method_not_allowed", `this path does not accept ${method}; it accepts ${allow.join(", ")}`, { allow }));
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const busy = err instanceof Refusal ? null : refusalForDatabaseError(err);
    if (busy) request.log.warn({ err: loggableError(err) }, busy.code === "storage_full" ? "database disk full" : "database busy or unreachable");
    const refusal = err instanceof Refusal ? err : (busy ?? refusalForUnstorableText(err) ?? fastifyRefusal(err, opts.maxBodyBytes));
    // A stream-only code has no HTTP status: sending one over HTTP is a bug, answered as one.
    if (refusal && ERRORS[refusal.code].http !== null) return sendRefusal(reply, refusal);
    request.log.error({ err: loggableError(err) }, "request failed");
    return sendRefusal(reply, new Refusal("internal_error", "internal error"));
  });
}

export default fp(errors, { name: "teammem-errors" });
