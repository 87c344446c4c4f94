import type { FastifyRequest, FastifyServerOptions } from "fastify";
import { isPlainKey } from "./errors/validation-message.js";
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

/** What a query parameter the server does not take is logged as, name and value alike unless the name is plain. */
const REDACTED_PARAMETER = "[redacted]";

/**
 * `url` as logged: the value of every query parameter not in `known` (and its name, unless a plain
 * word: {@link isPlainKey}) replaced by `[redacted]`, since no route reads it and nothing tells what
 * it holds (`?password=...`, `?api_key=...`); then every credential the scanner finds redacted, in
 * the path and the known parameters' values (an entry path in `?path=`, a namespace name).
 */
export function loggableUrl(url: string, known: ReadonlySet<string>): string {
  const q = url.indexOf("?");
  if (q < 0) return redactUrl(url);
  const query = url
    .slice(q + 1)
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      const rawName = eq < 0 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll("+", " "));
      } catch {
        // a malformed escape: not a name any route takes
      }
      if (known.has(name)) return part;
      const shown = isPlainKey(name) ? rawName : REDACTED_PARAMETER;
      return eq < 0 ? shown : `${shown}=${REDACTED_PARAMETER}`;
    })
    .join("&");
  return redactUrl(`${url.slice(0, q)}?${query}`);
}

/**
 * Fastify's request serializer (method, url, host, address; never headers or bodies) with the URL
 * as {@link loggableUrl} makes it.
 */
function requestSerializer(known: ReadonlySet<string>) {
  return (req: FastifyRequest): Record<string, unknown> => ({
    method: req.method,
    url: loggableUrl(req.url, known),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  });
}

/**
 * Logger options for Fastify with the Authorization header redacted and request URLs logged as
 * {@link loggableUrl} makes them; the error handler logs errors without the body. `false` turns
 * logging off.
 * @param queryParameters the query parameter names the app's routes take (filled as routes are
 *   added: see buildApp's onRoute hook); any other parameter's value is never logged.
 */
export function loggerOptions(logger: FastifyServerOptions["logger"], queryParameters: ReadonlySet<string>): FastifyServerOptions["logger"] {
  if (!logger) return false;
  const base = logger === true ? { level: "info" } : logger;
  const serializers = (base as { serializers?: Record<string, unknown> }).serializers;
  return { ...base, serializers: { ...serializers, req: requestSerializer(queryParameters) }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}
