import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
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
 * The replies under way on each connection of one HTTP server, for {@link clientErrorHandler}: Node
 * keeps a socket's current reply in a private field only, so the server's public `request` event
 * records it here (`server.on("request", replies.track)`). Held weakly: a closed connection's
 * entry goes with its socket.
 */
export class RepliesInFlight {
  readonly #bySocket = new WeakMap<Socket, ServerResponse[]>();

  /** The server's `request` listener: keeps `res` beside the replies of its connection not yet finished. */
  readonly track = (req: IncomingMessage, res: ServerResponse): void => {
    const unfinished = (this.#bySocket.get(req.socket) ?? []).filter((r) => !r.writableFinished);
    unfinished.push(res);
    this.#bySocket.set(req.socket, unfinished);
  };

  /** Whether a reply on `socket` has sent its status line and is not finished: anything written now would land inside it. */
  headersOut(socket: Socket): boolean {
    return (this.#bySocket.get(socket) ?? []).some((r) => r.headersSent && !r.writableFinished);
  }
}

/**
 * Fastify's `clientErrorHandler` for a server whose replies `replies` tracks: answers a request
 * Node's HTTP parser refused before any route saw it with our error contract `{code, message}` and
 * the status the registry gives the code, then closes the connection:
 * - headers over `maxHeaderSize` → 431 `headers_too_large`;
 * - headers or body not received within `headersTimeout` / `requestTimeout` → 408 `request_timeout`;
 * - anything else (a control character in a header, a malformed request line...) → 400 `invalid_request`.
 * Nothing of the request is echoed (a header may hold a token). A reset or already closed socket
 * gets nothing; so does one carrying a reply whose headers are out (a pipelined request refused
 * while an earlier reply streams): the connection is closed, as Node itself does.
 */
export function clientErrorHandler(replies: RepliesInFlight): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    if (socket.writable && !replies.headersOut(socket)) {
      const refusal = refusalForParserError(err.code);
      const status = ERRORS[refusal.code].http ?? 400; // the three codes above all have a status
      const body = JSON.stringify(refusal);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
