import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import type { ErrorCode } from "@teammem/protocol";
import { ApiError } from "../errors.js";
import { describeValidation } from "../validation-message.js"; // names the field(s), also inside union bodies

export interface ErrorsOptions {
  /** Largest accepted body in bytes; echoed as `details.limit` in `body_too_large`. */
  maxBodyBytes: number;
}

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

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  unsupported_media_type: "request bodies must be sent as application/json",
  invalid_request: "the request is malformed",
};


/** Fields of an error safe to log: never the request body, never pg's `detail` (it can quote values). */
function loggableError(err: FastifyError): Record<string, unknown> {
  return { type: err.name, code: err.code, message: err.message, stack: err.stack };
}

/**
 * The server's error contract. Every error reply is `{ code, message, details? }` with the code's
 * status from the protocol registry:
 * - `ApiError` → its own code, status and details;
 * - zod schema validation → 400 `invalid_request` naming the failing field(s);
 * - body over the limit → 413 `body_too_large` with `details.limit` (bytes);
 * - malformed JSON → 400 `invalid_request`; invalid UTF-8 in a JSON body → 400 `invalid_utf8`;
 * - a content type other than application/json → 415 `unsupported_media_type`;
 * - unknown route → 404 `not_found`;
 * - anything else → 500 `internal_error` with a generic message; the log keeps the error (never the body).
 * Also replaces Fastify's body parsers with one strict UTF-8 JSON parser.
 */
async function errors(app: FastifyInstance, opts: ErrorsOptions): Promise<void> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const rejectProto = (key: string, value: unknown) => {
    if (key === "__proto__") throw new ApiError("invalid_request", "the body contains a forbidden key __proto__");
    return value;
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) {
      return done(new ApiError("unsupported_media_type", "request bodies must be sent as application/json in UTF-8"), undefined);
    }
    const raw = body as Buffer;
    if (raw.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      return done(new ApiError("invalid_utf8", "the request body is not valid UTF-8"), undefined);
    }
    try {
      done(null, text.includes('"__proto__"') ? JSON.parse(text, rejectProto) : JSON.parse(text));
    } catch (err) {
      if (err instanceof ApiError) return done(err, undefined);
      done(new ApiError("invalid_request", "the request body is not valid JSON"), undefined);
    }
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    reply.status(404).send({ code: "not_found", message: `no route ${request.method} ${request.url.split("?")[0]}` }),
  );

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ApiError) {
      return reply
        .status(err.statusCode)
        .send({ code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      return reply.status(400).send({ code: "invalid_request", message: describeValidation(err.validationContext, err.validation) });
    }
    if (err.validation) {
      return reply.status(400).send({ code: "invalid_request", message: describeValidation(err.validationContext, err.validation) });
    }
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped === "body_too_large") {
      return reply.status(413).send({
        code: mapped,
        message: `the request body exceeds ${opts.maxBodyBytes} bytes`,
        details: { limit: opts.maxBodyBytes },
      });
    }
    if (mapped) return reply.status(mapped === "unsupported_media_type" ? 415 : 400).send({ code: mapped, message: MESSAGES[mapped] });
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500 && !isResponseSerializationError(err)) {
      const code: ErrorCode = status === 404 ? "not_found" : status === 413 ? "body_too_large" : status === 415 ? "unsupported_media_type" : "invalid_request";
      return reply.status(status === 404 || status === 413 || status === 415 ? status : 400).send({ code, message: MESSAGES[code] ?? "the request is malformed" });
    }
    request.log.error({ err: loggableError(err) }, "request failed");
    return reply.status(500).send({ code: "internal_error", message: "internal error" });
  });
}

export default fp(errors, { name: "teammem-errors" });
