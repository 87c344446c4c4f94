import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { ERRORS, type ErrorCode } from "@teammem/protocol";

/** Node's parser errors that mean "the request's headers are too large" (over `maxHeaderSize`). */
const HEADER_OVERFLOW = new Set(["HPE_HEADER_OVERFLOW", "ERR_HTTP_HEADER_OVERFLOW"]);

/** Node's timeout errors: the request was not complete within `requestTimeout` / `headersTimeout`. */
const TIMEOUTS = new Set(["ERR_HTTP_REQUEST_TIMEOUT", "HPE_HEADERS_TIMEOUT"]);

/** Our code and message for a request Node's HTTP parser refused, by the parser's error code. */
export function refusalForParserError(parserCode: string | undefined): { code: ErrorCode; message: string } {
  if (parserCode !== undefined && HEADER_OVERFLOW.has(parserCode)) {
    return { code: "headers_too_large", message: "the request's headers are too large" };
  }
  if (parserCode !== undefined && TIMEOUTS.has(parserCode)) {
    return { code: "request_timeout", message: "the request was not received in time" };
  }
  return {
    code: "invalid_request",
    message: "the request is not valid HTTP/1.1 (a malformed request line or header, or a control character in a header)",
  };
}

/**
 * Fastify's `clientErrorHandler`: answers a request Node's HTTP parser refused before any route
 * saw it with our error contract `{code, message}` and the status the registry gives the code,
 * then closes the connection:
 * - headers over `maxHeaderSize` → 431 `headers_too_large`;
 * - headers or body not received within `headersTimeout` / `requestTimeout` → 408 `request_timeout`;
 * - anything else (a control character in a header, a malformed request line...) → 400 `invalid_request`.
 * Nothing of the request is echoed (a header may hold a token). A reset or already closed socket
 * gets nothing.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  // A reply already under way on this connection (keep-alive) must not get a second status line.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const refusal = refusalForParserError(err.code);
    const status = ERRORS[refusal.code].http ?? 400; // the three codes above all have a status
    const body = JSON.stringify(refusal);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
