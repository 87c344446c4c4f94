import type { FastifyRequest, FastifyServerOptions } from "fastify";
import { redactUrl } from "./secrets/names.js";

/** Paths pino replaces with "[redacted]" wherever a request or its headers get logged. */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "request.headers.authorization",
  "headers.authorization",
  "req.headers.cookie",
  "headers.cookie",
  // A WebSocket client may carry its token as the subprotocol `teammem.bearer.<token>`.
  'req.headers["sec-websocket-protocol"]',
  'request.headers["sec-websocket-protocol"]',
  'headers["sec-websocket-protocol"]',
];

/**
 * Fastify's request serializer (method, url, host, address; never headers or bodies) with every
 * credential in the URL redacted: an entry path in the query (`?path=team/AKIA…/notes.md`) or a
 * namespace name can hold one.
 */
function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * Logger options for Fastify with the Authorization header redacted and credentials in request
 * URLs redacted ({@link serializeRequest}); the error handler logs errors without the body.
 * `false` turns logging off.
 */
export function loggerOptions(logger: FastifyServerOptions["logger"]): FastifyServerOptions["logger"] {
  if (!logger) return false;
  const base = logger === true ? { level: "info" } : logger;
  const serializers = (base as { serializers?: Record<string, unknown> }).serializers;
  return { ...base, serializers: { ...serializers, req: serializeRequest }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}
