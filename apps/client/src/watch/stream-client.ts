/**
 * One connection to a namespace's change stream (`GET .../stream`, a WebSocket; the protocol
 * package's `stream.ts` and README *Change stream*): opens it with the token in the
 * `Authorization` header (never in the URL), sends `subscribe`, parses every frame with the
 * protocol's schemas and hands them over, and reports how the connection ended, once. No retries
 * here: the caller decides from the {@link StreamEnd} (see `watch-folder.ts`).
 * Liveness: the server sends a message or a ping at least every `heartbeatMs`; silence for twice
 * that (or no `subscribed` within {@link OPEN_TIMEOUT_MS}) ends the connection as dead.
 */
import WebSocket from "ws";
import {
  ERROR_CODES,
  codeForStatus,
  ErrorBody,
  STREAM_PROTOCOL_VERSION,
  STREAM_SUBPROTOCOL,
  StreamServerMessage,
  streamPath,
  type ErrorCode,
  type ServerRef,
} from "@teammem/protocol";

/** Longest wait from connecting to `subscribed`, ms. */
const OPEN_TIMEOUT_MS = 15_000;
/**
 * Longest wait, after {@link StreamConnection.close} sent the close frame, for the server's, ms;
 * then the socket is destroyed (ws would wait 30 s: a stopping watch stayed alive that long on a
 * connection gone silent).
 */
export const CLOSE_TIMEOUT_MS = 2_000;
/** Largest frame accepted from the server, bytes: a change carries up to 64 KiB of content inline; JSON escaping can grow it. */
const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** How a connection ended. */
export type StreamEnd =
  /** The server answered the upgrade with an HTTP error (no frame exchanged): `code` from its body or status. */
  | { readonly kind: "refused"; readonly status: number; readonly code: ErrorCode; readonly message: string }
  /** The server closed the socket; `code` from the close reason (or the error frame before it), when it names one. */
  | { readonly kind: "closed"; readonly closeCode: number; readonly code: ErrorCode | undefined; readonly message: string; readonly details?: Record<string, unknown> }
  /** No connection, or a dead one (nothing heard), or a frame that is not the protocol's. */
  | { readonly kind: "network"; readonly reason: string }
  /** {@link StreamConnection.close} was called. */
  | { readonly kind: "stopped" };

export interface StreamOptions {
  /** Server base URL (`http(s)://host[:port][/prefix]`), as in the folder's config. */
  readonly server: string;
  readonly namespace: string;
  readonly token: string;
  /** Subscribe from this cursor (exclusive) of server `serverRef` (required unless cursor is 0). */
  readonly cursor: number;
  readonly serverRef: ServerRef | undefined;
  /** Every parsed server message but `error` (which ends the connection), in order. */
  readonly onMessage: (message: Exclude<StreamServerMessage, { type: "error" }>) => void;
  /** Called once, when the connection is over. */
  readonly onEnd: (end: StreamEnd) => void;
}

/** The stream's WebSocket URL for a server base URL (`https://h/p` → `wss://h/p/v1/namespaces/ns/stream`). */
export function streamUrl(server: string, namespace: string): string {
  const url = new URL(server.replace(/\/+$/, "") + streamPath(namespace));
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

function errorCodeOf(value: unknown): ErrorCode | undefined {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value) ? (value as ErrorCode) : undefined;
}

export class StreamConnection {
  readonly #socket: WebSocket;
  readonly #options: StreamOptions;
  #ended = false;
  #silence: NodeJS.Timeout | undefined;
  #silenceMs = OPEN_TIMEOUT_MS;
  /** The `error` frame the server sent before closing, if any. */
  #lastError: ErrorBody | undefined;

  constructor(options: StreamOptions) {
    this.#options = options;
    const socket = new WebSocket(streamUrl(options.server, options.namespace), [STREAM_SUBPROTOCOL], {
      headers: { authorization: `Bearer ${options.token}` },
      handshakeTimeout: OPEN_TIMEOUT_MS,
      maxPayload: MAX_FRAME_BYTES,
      perMessageDeflate: false,
      // ws's option (this package requires ws 8.23); its types (@types/ws 8.18) do not name it yet.
      ...({ closeTimeout: CLOSE_TIMEOUT_MS } as WebSocket.ClientOptions),
    });
    this.#socket = socket;
    this.#heard();
    socket.on("unexpected-response", (request, response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 64 * 1024) chunks.push(chunk);
      });
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        let body: ErrorBody | undefined;
        try {
          const parsed = ErrorBody.safeParse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          if (parsed.success) body = parsed.data;
        } catch {
          // a proxy's page, not a teammem body: the status says enough
        }
        this.#end({ kind: "refused", status, code: body?.code ?? codeForStatus(status), message: body?.message ?? `HTTP ${status}` });
        request.destroy();
      });
      response.on("error", () => this.#end({ kind: "network", reason: "the upgrade reply broke off" }));
    });
    socket.on("open", () => {
      this.#heard();
      socket.send(
        JSON.stringify({
          type: "subscribe",
          protocolVersion: STREAM_PROTOCOL_VERSION,
          cursor: options.cursor,
          ...(options.serverRef ? { server: options.serverRef } : {}),
        }),
      );
    });
    socket.on("ping", () => this.#heard());
    socket.on("message", (data, isBinary) => this.#message(data, isBinary));
    socket.on("error", (err: NodeJS.ErrnoException) => this.#end({ kind: "network", reason: err.code ?? err.message }));
    socket.on("close", (closeCode, reasonBuffer) => {
      const reason = reasonBuffer.toString("utf8");
      const code = errorCodeOf(reason) ?? this.#lastError?.code;
      this.#end({
        kind: "closed",
        closeCode,
        code,
        message: this.#lastError?.message ?? (reason || `connection closed (${closeCode})`),
        ...(this.#lastError?.details ? { details: this.#lastError.details } : {}),
      });
    });
  }

  /** Closes the connection (normal closure; the socket is destroyed {@link CLOSE_TIMEOUT_MS} after if the server does not answer); `onEnd` gets `stopped`. */
  close(): void {
    this.#end({ kind: "stopped" });
  }

  #message(data: WebSocket.RawData, isBinary: boolean): void {
    this.#heard();
    if (isBinary) return this.#fail("the server sent a binary frame");
    let json: unknown;
    try {
      json = JSON.parse(Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data as Buffer[]).toString("utf8"));
    } catch {
      return this.#fail("the server sent a frame that is not JSON");
    }
    const parsed = StreamServerMessage.safeParse(json);
    if (!parsed.success) return this.#fail("the server sent a message this client does not understand (is it a teammem server of this version?)");
    const message = parsed.data;
    if (message.type === "error") {
      this.#lastError = message;
      return;
    }
    if (message.type === "subscribed") {
      this.#silenceMs = 2 * message.heartbeatMs + 5_000; // a little slack for a busy machine
      this.#heard();
    }
    this.#options.onMessage(message);
  }

  #fail(reason: string): void {
    this.#end({ kind: "network", reason });
  }

  /** Something arrived: the connection is alive for another silence period. */
  #heard(): void {
    if (this.#ended) return;
    if (this.#silence) clearTimeout(this.#silence);
    this.#silence = setTimeout(() => this.#end({ kind: "network", reason: `nothing heard from the server for ${Math.round(this.#silenceMs / 1000)} s` }), this.#silenceMs);
  }

  #end(end: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#silence) clearTimeout(this.#silence);
    if (end.kind === "stopped" && this.#socket.readyState === WebSocket.OPEN) this.#socket.close(1000);
    else this.#socket.terminate();
    this.#socket.on("error", () => undefined); // late errors of a socket given up on
    this.#options.onEnd(end);
  }
}
