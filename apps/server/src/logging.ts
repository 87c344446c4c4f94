import type { FastifyServerOptions } from "fastify";

/** Paths pino replaces with "[redacted]" wherever a request or its headers get logged. */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "request.headers.authorization",
  "headers.authorization",
  "req.headers.cookie",
  "headers.cookie",
];

/**
 * Logger options for Fastify with the Authorization header redacted. Fastify's default request
 * serializer logs method, url, host and address only, never headers or bodies; the error handler
 * logs errors without the body. `false` turns logging off.
 */
export function loggerOptions(logger: FastifyServerOptions["logger"]): FastifyServerOptions["logger"] {
  if (!logger) return false;
  const base = logger === true ? { level: "info" } : logger;
  return { ...base, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}
