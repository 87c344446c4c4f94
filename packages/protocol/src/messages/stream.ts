/**
 * The change stream: `GET /v1/namespaces/:namespace/stream` upgraded to a WebSocket. One namespace
 * per connection; every frame is one JSON text message parsed with these schemas (the server
 * `safeParse`s every inbound frame, the client should too). See the README's *Change stream*.
 *
 * Conversation: the client opens the socket (token in `Authorization: Bearer` or the subprotocol
 * `teammem.bearer.<token>`), sends one {@link StreamSubscribe}, receives {@link StreamSubscribed},
 * then every change after its cursor ({@link StreamChange}, strictly in cursor order, no gap, no
 * duplicate), one {@link StreamCaughtUp} when the backlog is sent, then live changes, with a
 * {@link StreamHeartbeat} whenever nothing else was sent for `heartbeatMs`. The server ends a
 * connection with a close code from the error registry (`ERRORS[code].close`, reason = the code),
 * after a {@link StreamError} frame carrying the message and details when it can.
 */
import { z } from "zod";
import { Change } from "./changes.js";
import { Cursor, ErrorBody, NamespaceName } from "./common.js";
import { ServerRef } from "./server.js";

/** The stream protocol version a client names in `subscribe`; a new meaning gets a new number. */
export const STREAM_PROTOCOL_VERSION = 1;

/** The route of a namespace's stream, with the name percent-encoded as one segment (`acme%2Fweb`). */
export function streamPath(namespace: string): string {
  return `/v1/namespaces/${encodeURIComponent(namespace)}/stream`;
}

/**
 * The WebSocket subprotocol of this stream. A client offers it (`Sec-WebSocket-Protocol`); the
 * server selects it. A client that cannot set headers (a browser) also offers
 * `teammem.bearer.<token>` ({@link bearerSubprotocol}); the server never selects that one.
 */
export const STREAM_SUBPROTOCOL = "teammem.stream.v1";
/** Prefix of the subprotocol that carries the bearer token. */
export const BEARER_SUBPROTOCOL_PREFIX = "teammem.bearer.";

/** The subprotocol carrying `token` (a JWT is made only of characters a subprotocol may hold). */
export function bearerSubprotocol(token: string): string {
  return BEARER_SUBPROTOCOL_PREFIX + token;
}

/**
 * Client → server, once, first: stream the namespace from `cursor` (exclusive; 0 for everything).
 * `server` is the identity and epoch the cursor came from; omit it only with cursor 0. Another
 * identity or epoch, or a cursor above the namespace's, closes with 4002 `stale_cursor`.
 */
export const StreamSubscribe = z.strictObject({
  type: z.literal("subscribe"),
  protocolVersion: z.literal(STREAM_PROTOCOL_VERSION),
  cursor: Cursor,
  server: ServerRef.optional(),
});
export type StreamSubscribe = z.infer<typeof StreamSubscribe>;

/** Every message a client may send (today only `subscribe`; anything else closes with 4400). */
export const StreamClientMessage = z.discriminatedUnion("type", [StreamSubscribe]);
export type StreamClientMessage = z.infer<typeof StreamClientMessage>;

/**
 * Server → client, once, answering `subscribe`. `cursor` echoes the subscribed cursor; `headCursor`
 * is the namespace's cursor when the subscription started (catch-up ends at or after it).
 */
export const StreamSubscribed = z.object({
  type: z.literal("subscribed"),
  namespace: NamespaceName,
  cursor: Cursor,
  headCursor: Cursor,
  server: ServerRef,
  /** Largest content (UTF-8 bytes) sent inline; a larger one comes with `content: null, contentOmitted: true`. */
  maxInlineBytes: z.number().int().nonnegative(),
  /** The server sends something at least this often (ms); silence for twice as long means a dead connection. */
  heartbeatMs: z.number().int().positive(),
});
export type StreamSubscribed = z.infer<typeof StreamSubscribed>;

/**
 * Server → client: one change, in the change feed's shape (`GET .../changes`). The change's `cursor`
 * is greater than every cursor sent before on this connection. `contentOmitted: true`: the entry's
 * content (`size` bytes, hash `sha256`) was over `maxInlineBytes`, so `content` is null although
 * `deleted` is false: fetch it with `GET .../version?path&version` (or `.../entry?path`).
 */
export const StreamChange = z.object({
  type: z.literal("change"),
  change: Change,
  contentOmitted: z.boolean(),
});
export type StreamChange = z.infer<typeof StreamChange>;

/** Server → client, once: every change up to `cursor` is sent; what follows is live. */
export const StreamCaughtUp = z.object({ type: z.literal("caught_up"), cursor: Cursor });
export type StreamCaughtUp = z.infer<typeof StreamCaughtUp>;

/**
 * Server → client when nothing else was sent for `heartbeatMs`. `cursor`: the last cursor sent on
 * this connection (the subscribed one if none): the client's cursor is current up to it.
 */
export const StreamHeartbeat = z.object({ type: z.literal("heartbeat"), cursor: Cursor });
export type StreamHeartbeat = z.infer<typeof StreamHeartbeat>;

/**
 * Server → client just before the server closes the connection for `code` (the close frame then
 * carries `ERRORS[code].close` and the reason `code`). Not sent when the close is for the
 * connection's own state (a full send buffer, a dead peer) or a message over the size limit (1009).
 */
export const StreamError = ErrorBody.extend({ type: z.literal("error") });
export type StreamError = z.infer<typeof StreamError>;

/** Every message the server sends on the stream. */
export const StreamServerMessage = z.discriminatedUnion("type", [StreamSubscribed, StreamChange, StreamCaughtUp, StreamHeartbeat, StreamError]);
export type StreamServerMessage = z.infer<typeof StreamServerMessage>;
