import type { Socket } from "node:net";
import { ERRORS } from "@teammem/protocol";

/** Node's parser errors that mean "the request's headers are too large". */
const HEADER_OVERFLOW = new Set(["HPE_HEADER_OVERFLOW", "ERR_HTTP_HEADER_OVERFLOW"]);

/** Node's timeout errors: the request was not complete within `requestTimeout` / `headersTimeout`. */
const TIMEOUTS = new Set(["ERR_HTTP_REQUEST_TIMEOUT", "HPE_HEADERS_TIMEOUT"]);

/** The message of a request Node's HTTP parser refused, by the parser's error code. */
function messageFor(code: string | undefined): string {
  if (code !== undefined && HEADER_OVERFLOW.has(code)) return "the request's headers are too large";
  if (code !== undefined && TIMEOUTS.has(code)) return "the request was not received in time";
  return "the request is not valid HTTP/1.1 (a malformed request line or header, or a control character in a header)";
}

/**
 * Fastify's `clientErrorHandler`: answers a request Node's HTTP parser refused before any route
 * saw it (a control character in a header, a malformed request line, headers over the limit) with
 * our error contract, `400 {code: "invalid_request", message}`, instead of Fastify's
 * `{error, message, statusCode}` body, then closes the connection. Nothing of the request is
 * echoed (a header may hold a token). A reset or already closed socket gets nothing.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify({ code: "invalid_request", message: messageFor(err.code) });
    socket.write(
      `HTTP/1.1 ${ERRORS.invalid_request.http} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
