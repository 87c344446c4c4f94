/**
 * The client's HTTP calls to one namespace of a teammem server, through ky. Every reply is parsed
 * with the protocol's zod schemas; error replies become a {@link ServerError} carrying the stable
 * code (from the body; a bodyless reply gets its status's generic code), unreachable servers a
 * {@link NetworkError}. Requests the registry says may succeed later are retried (see retry.ts).
 * The token only ever goes into the Authorization header. Redirects are never followed (a request,
 * and a batch's team files, go only to the configured server): a 3xx reply is a {@link RedirectError}.
 *
 * One client is made per run of a command (a sync pass of `watch` makes its own), and it gives up
 * on an unreachable server for the rest of the run (issue 12, try16 F7): once a request reached no
 * server (timed out, refused, reset, DNS failure, a reply that stalled; not an error reply with a
 * code), every later request fails at once with the same {@link NetworkError}, so a run that cannot
 * succeed waits one deadline, not one per request. Until the server has answered once, requests go
 * one at a time (a second waits for the first's outcome) and wait at most
 * {@link FIRST_ANSWER_TIMEOUT_MS} for their headers, so a server that never answers gets one request
 * on one connection per run, and a sync against it gives up within that (try18 F6). Each client has
 * its own connection pool, closed when a request is cut off (timed out, budget spent, reply
 * stalled) or reached no server: Node's fetch (undici) would otherwise open one more connection for
 * the aborted request (nodejs/undici#5845), a second connection to a server that does not answer.
 *
 * Every request's URL after the server (namespace, entry path, ids) and its body's identity fields
 * (`clientId`, `opId`) are scanned before it leaves: a request holding a credential there is not
 * sent at all ({@link refuseCredentialInRequest}), whatever command asked (sync, push, history,
 * diff, restore, resolve, doctor, init, watch). Content is scanned by the send path, which knows
 * the team's approved bypasses.
 */
import ky, { HTTPError, TimeoutError } from "ky";
import { Agent } from "undici";
import { z } from "zod";
import {
  describeNetworkError,
  BatchResponse,
  AppliedResult,
  ChangesResponse,
  ConflictsResponse,
  EntryResponse,
  ERRORS,
  AppliedWriteResponse,
  HistoryResponse,
  FindVersionsResponse,
  HeadsResponse,
  ReadEntriesResponse,
  ServerInfoResponse,
  NamespaceResponse,
  ScanPolicyResponse,
  WhoamiResponse,
  BypassList,
  BypassResponse,
  type BypassRequest,
  VersionResponse,
  type BatchRequest,
  type BlockReport,
  type FindVersionsRequest,
  type ResolveConflictRequest,
  type RestoreRequest,
} from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { ClientError, NetworkError, ProtocolError, RedirectError, ServerError } from "../errors.js";
import { ReplyLimitError, readReplyText } from "./read-reply.js";
import { MAX_REPLY_BYTES, ReplyCap } from "./reply-cap.js";
import { codeOf, kyRetry, type RetryOptions } from "./retry.js";

export { MAX_REPLY_BYTES };

/**
 * Longest wait for the headers of a request sent before the server has answered this client once,
 * in ms (when `timeoutMs` is not shorter): what a server that accepts connections and never answers
 * costs a run. The same as `teammem init`'s reachability check.
 */
export const FIRST_ANSWER_TIMEOUT_MS = 10_000;

/** Why a request got no reply headers within `ms`: the words every command prints for a server that does not answer. */
export function noAnswerReason(ms: number): string {
  return `not answering (no answer within ${ms} ms)`;
}

export interface ApiOptions {
  /** Base URL, e.g. `http://127.0.0.1:8080` or `https://host/teammem`. */
  readonly server: string;
  readonly namespace: string;
  readonly token: string;
  /**
   * Time one attempt waits for the reply's headers, in ms (default 30 000); a timed-out attempt is
   * not retried. Until the server has answered this client once, at most {@link FIRST_ANSWER_TIMEOUT_MS}.
   */
  readonly timeoutMs?: number;
  /**
   * Deadline of one attempt's whole reply, headers and body, in ms from the request (default
   * 120 000: a reply of {@link MAX_REPLY_BYTES} at about 11 Mbit/s, longer in proportion when the
   * server's entry limit raised the reply bound, see {@link ReplyCap}; never less than
   * `timeoutMs`). A body not complete by then fails with `network_error`, and is not retried.
   */
  readonly replyDeadlineMs?: number;
  /**
   * Largest reply body read while the server's entry limit is not known, in bytes (default
   * {@link MAX_REPLY_BYTES}); the server's limit raises it (see {@link ReplyCap}). A larger reply
   * fails with `protocol_error`.
   */
  readonly maxReplyBytes?: number;
  /**
   * Time budget of all this client's calls together, in ms from its creation (default: none): a
   * call is cut off when it runs out, whatever it waits for (headers, body, an error body, a retry's
   * wait), and a call begun after it is refused at once; both fail with `network_error` saying so.
   * For a run the caller kills at its own timeout (an agent's hook, try16 F6).
   */
  readonly budgetMs?: number;
  /**
   * Stops this client for good when aborted (`teammem watch` stopping, try20 F3): the requests in
   * flight are cut off at once, whatever they wait for (headers, a body trickling in, a retry's
   * wait; their connections closed), and fail with {@link StoppedError}, as does every later call,
   * without sending anything.
   */
  readonly signal?: AbortSignal;
  /**
   * Retries (default: 3, waits up to 30 s each). One call takes at most
   * `(limit + 1) * replyDeadlineMs + limit * maxDelayMs`.
   */
  readonly retry?: RetryOptions;
  /**
   * Told right before each attempt of a request leaves (a retry is one more), with what it asks
   * (e.g. `"GET server"`); a request refused before it leaves (a credential in it, the server
   * unreachable earlier in the run, the budget spent) is not an attempt. For tests and diagnostics.
   */
  readonly onAttempt?: (what: string) => void;
}

export interface Api {
  readonly server: string;
  /** Whether the server has answered a request of this client (any reply, an error reply too): false means nothing reached it. */
  answered(): boolean;
  /** The bound of this client's replies; a sync raises it to the server's entry limit (GET /v1/server). */
  readonly replies: ReplyCap;
  /** Creates the namespace if absent (PUT, idempotent). */
  ensureNamespace(): Promise<NamespaceResponse>;
  /** Changes with cursor > `since`, at most `limit` (1-1000). */
  changes(since: number, limit: number): Promise<ChangesResponse>;
  /** Sends a batch; one result per operation, in order. */
  batch(request: BatchRequest): Promise<BatchResponse>;
  /** The head of one entry (404 not_found: never existed). */
  entry(path: string): Promise<EntryResponse>;
  /** The heads of up to 200 paths with their content; paths without an entry are left out. */
  entries(paths: readonly string[]): Promise<ReadEntriesResponse>;
  /** Version `version` of one entry, with its content (null for a tombstone; 404 not_found: no such version). */
  version(path: string, version: number): Promise<VersionResponse>;
  /** Every version of one entry, newest first, and its conflict records (404 not_found: no history at this path). */
  history(path: string): Promise<HistoryResponse>;
  /** Writes version `request.version`'s content (or tombstone) as a new head version, kind restore; idempotent by opId (404 not_found: no such version). */
  restore(request: RestoreRequest): Promise<AppliedWriteResponse>;
  /** Open conflict records of the namespace, oldest first. */
  openConflicts(): Promise<ConflictsResponse>;
  /** Resolves one conflict record by writing `request`'s content (or delete) as the new head. */
  resolveConflict(id: string, request: ResolveConflictRequest): Promise<z.infer<typeof AppliedResult>>;
  /** Tells the server (audit log) that a file was held back; metadata only. */
  blockReport(report: BlockReport): Promise<void>;
  /** The team's scan policy (fingerprint key); any role. */
  scanPolicy(): Promise<ScanPolicyResponse>;
  /** Asks that a held-back secret be let through for the team (member); 201 new, 200 the team's live request for that fingerprint. */
  requestBypass(request: BypassRequest): Promise<BypassResponse>;
  /** One of the caller's bypass requests (404 not_found: not the caller's, or gone). */
  bypass(id: string): Promise<BypassResponse>;
  /** One page (up to 500) of the caller's bypass requests in every state, newest first, those older than request `before`. */
  bypasses(before: string | undefined): Promise<BypassList>;
  /** The server's identity, epoch and limits (GET /v1/server); any role. */
  serverInfo(): Promise<ServerInfoResponse>;
  /** One page of every entry's head (tombstones too), metadata only, paths after `after`, in path order. */
  heads(after: string | undefined, limit: number): Promise<HeadsResponse>;
  /** Per path, the newest version whose sha256 starts with one of the candidates' 16-hex-digit prefixes. */
  findVersions(request: FindVersionsRequest): Promise<FindVersionsResponse>;
  /** Who the token speaks for (team, user, role, expiry) and the server's version; any role. */
  whoami(): Promise<WhoamiResponse>;
}

/**
 * A request cut off, or not sent, because its client's `signal` was aborted (the command is
 * stopping): a {@link NetworkError} (code `network_error`), so callers keep what was queued.
 */
export class StoppedError extends NetworkError {
  constructor(server: string, what: string) {
    super(server, "stopped", { code: "network_error", message: `${what} to ${server} cut off: the command is stopping` });
  }
}

function networkReason(err: unknown, server: string, timeoutMs: number): string {
  if (err instanceof TimeoutError) return noAnswerReason(timeoutMs);
  return describeNetworkError(err, server);
}

/** Where a redirect reply points, for its error: the Location's origin, or its path when it stays on `server`'s origin. */
export function redirectTarget(server: string, url: string, response: Response): string {
  const location = response.headers.get("location");
  if (location === null) return "nowhere (no Location header)";
  let target: URL;
  try {
    target = new URL(location, url);
  } catch {
    return "an unreadable Location";
  }
  return target.origin === new URL(server).origin ? target.pathname : target.origin;
}

/** Top-level body fields that name who or what sends, never content: scanned in every request. */
const IDENTITY_FIELDS = ["clientId", "opId"] as const;

/**
 * Refuses a request whose URL, after `server`, holds a credential (a namespace, entry path or id
 * holding one; scanned percent-decoded, as the server reads it), or whose body's `clientId` or
 * `opId` does: nothing is sent.
 * @throws ClientError `secret_detected` (exit 1) naming the rules, never the value.
 */
export function refuseCredentialInRequest(server: string, url: string, body?: unknown): void {
  const rest = url.slice(server.length);
  let decoded = rest;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    // Malformed percent-encoding: scan the raw text (it leaves as is).
  }
  const urlRules = new Set([...scan(decoded, { allowMarker: false }), ...scan(rest, { allowMarker: false })].map((f) => f.ruleId));
  if (urlRules.size > 0)
    throw new ClientError(
      `not sent: the request to ${server} would carry a credential (${[...urlRules].join(", ")}) in its namespace or path; fix the namespace (.teammem/config.json, teammem init) or the path`,
      1,
      "secret_detected",
    );
  if (typeof body !== "object" || body === null) return;
  for (const field of IDENTITY_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value !== "string") continue;
    const rules = [...new Set(scan(value, { allowMarker: false }).map((f) => f.ruleId))];
    if (rules.length > 0)
      throw new ClientError(
        `not sent: the request to ${server} would carry a credential (${rules.join(", ")}) in its ${field === "clientId" ? "client id (.teammem/config.json: give it a new random id)" : "operation id"}`,
        1,
        "secret_detected",
      );
  }
}

/**
 * An HTTP client for one run of a command (see the module's docstring: after a request reached no
 * server, later ones fail at once with the same {@link NetworkError}; make a new client to try the
 * network again).
 */
export function createApi(options: ApiOptions): Api {
  const server = options.server.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const replies = new ReplyCap(options.maxReplyBytes ?? MAX_REPLY_BYTES);
  const deadlineMs = () => Math.max(timeoutMs, options.replyDeadlineMs ?? replies.deadlineMs);
  const budgetEndsAt = options.budgetMs === undefined ? undefined : performance.now() + options.budgetMs;
  const firstAnswerTimeoutMs = Math.min(timeoutMs, FIRST_ANSWER_TIMEOUT_MS);
  const base = `${server}/v1/namespaces/${encodeURIComponent(options.namespace)}`;
  /** This client's connections; closed for good once a request is cut off or reaches no server (see the module's docstring). */
  const pool = new Agent();
  let poolClosed = false;
  const closePool = () => {
    if (poolClosed) return;
    poolClosed = true;
    void pool.destroy().catch(() => undefined);
  };
  const http = ky.create({
    headers: { authorization: `Bearer ${options.token}`, accept: "application/json" },
    timeout: timeoutMs,
    // Closed in the abort's own dispatch, before undici re-queues the aborted request on a new connection.
    fetch: (input, init) => {
      if (input instanceof Request) input.signal.addEventListener("abort", closePool, { once: true });
      // Node's fetch takes an undici dispatcher; its types name the bundled undici's, of another version.
      return fetch(input, { ...init, dispatcher: pool } as unknown as RequestInit);
    },
    retry: kyRetry(options.retry),
    // fetch would re-send a POST's body (team files) wherever a 307/308 points, another origin too.
    redirect: "manual",
  });

  /** The failure of the first request that reached no server: later requests are not sent. */
  let unreachable: NetworkError | undefined;
  /** Whether the server has answered a request of this client (any reply, an error reply too). */
  let answered = false;
  /** Settles when the request in flight before the server first answered has its outcome. */
  let firstContact: Promise<void> | undefined;

  async function call<S extends z.ZodType>(method: string, url: string, what: string, schema: S | null, body?: unknown): Promise<z.infer<S>> {
    refuseCredentialInRequest(server, url, body);
    for (;;) {
      if (options.signal?.aborted) throw new StoppedError(server, what);
      if (unreachable) throw new NetworkError(server, unreachable.reason);
      if (answered || firstContact === undefined) break;
      await firstContact;
    }
    const sent = send(method, url, what, schema, body);
    if (!answered) {
      const settled: Promise<void> = sent.then(
        () => undefined,
        () => undefined,
      ).then(() => {
        if (firstContact === settled) firstContact = undefined;
      });
      firstContact = settled;
    }
    return sent;
  }

  /** Marks the server unreachable for the rest of this client's life; returns `err`. */
  function unreachableBy(err: NetworkError): NetworkError {
    unreachable ??= err;
    closePool();
    return err;
  }

  async function send<S extends z.ZodType>(method: string, url: string, what: string, schema: S | null, body?: unknown): Promise<z.infer<S>> {
    let text: string;
    const maxReplyBytes = replies.maxBytes;
    const replyDeadlineMs = deadlineMs();
    let attemptStart = performance.now();
    const startAttempt = () => void (attemptStart = performance.now());
    const budgetLeftMs = budgetEndsAt === undefined ? undefined : Math.floor(budgetEndsAt - performance.now());
    if (budgetLeftMs !== undefined && budgetLeftMs <= 0) throw new NetworkError(server, `this run's time budget of ${options.budgetMs} ms is spent; ${what} not sent`);
    // Aborting the request also breaks off its body and a retry's wait. Our own timer, held until the
    // request settles, not AbortSignal.timeout: ky hands fetch a clone of its Request, whose signal
    // stops following ours once garbage collected (nodejs/undici#4068; a hook's sync ran past its
    // 2 s budget into the 120 s reply deadline). Closing the pool ends the request and its body whatever
    // the signal does. The caller's stop (options.signal) cuts it off the same way.
    const stop = options.signal;
    const cut = budgetLeftMs === undefined && stop === undefined ? undefined : new AbortController();
    let budgetSpent = false;
    const budgetTimer = budgetLeftMs === undefined ? undefined : setTimeout(() => ((budgetSpent = true), cut?.abort(), closePool()), budgetLeftMs);
    const onStop = () => (cut?.abort(), closePool());
    stop?.addEventListener("abort", onStop, { once: true });
    const headersTimeoutMs = answered ? timeoutMs : firstAnswerTimeoutMs;
    try {
      const response = await http(url, {
        method,
        timeout: headersTimeoutMs,
        hooks: { beforeRequest: [startAttempt, ...(options.onAttempt ? [() => options.onAttempt?.(what)] : [])] },
        ...(cut ? { signal: cut.signal } : {}),
        ...(body === undefined ? {} : { json: body }),
      });
      answered = true;
      text = await readReplyText(response, maxReplyBytes, attemptStart + replyDeadlineMs, replyDeadlineMs);
    } catch (err) {
      // Stopped, or the budget's end: this run's, not the server's; later requests are refused by their checks.
      if (stop?.aborted) {
        closePool();
        throw new StoppedError(server, what);
      }
      if (budgetSpent) {
        closePool();
        throw new NetworkError(server, `this run's time budget of ${options.budgetMs} ms ran out waiting for the reply to ${what}; stopped waiting`);
      }
      if (err instanceof ReplyLimitError && err.kind === "too_large")
        throw new ProtocolError(server, `${what}: over ${maxReplyBytes} bytes, more than any teammem reply; stopped reading`);
      if (err instanceof ReplyLimitError) throw unreachableBy(new NetworkError(server, `the reply to ${what} was not complete within ${replyDeadlineMs} ms; stopped reading`));
      if (err instanceof HTTPError) answered = true;
      if (err instanceof HTTPError && err.response.status < 400) {
        void err.response.body?.cancel().catch(() => undefined);
        throw new RedirectError(server, err.response.status, redirectTarget(server, url, err.response));
      }
      if (err instanceof HTTPError) {
        const { code, message, details } = await codeOf(err.response);
        throw new ServerError(server, err.response.status, code, message, ERRORS[code].retry, details);
      }
      // Another request of this run reached no server and closed the pool under this one: the same cause.
      if (unreachable && !(err instanceof TimeoutError)) throw new NetworkError(server, unreachable.reason);
      throw unreachableBy(new NetworkError(server, networkReason(err, server, headersTimeoutMs)));
    } finally {
      clearTimeout(budgetTimer);
      stop?.removeEventListener("abort", onStop);
    }
    if (schema === null) return undefined as z.infer<S>;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ProtocolError(server, what);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new ProtocolError(server, what);
    return parsed.data;
  }

  return {
    server,
    answered: () => answered,
    replies,
    ensureNamespace: () => call("PUT", base, "PUT namespace", NamespaceResponse),
    changes: (since, limit) => call("GET", `${base}/changes?since=${since}&limit=${limit}`, "GET changes", ChangesResponse),
    batch: (request) => call("POST", `${base}/batch`, "POST batch", BatchResponse, request),
    entry: (path) => call("GET", `${base}/entry?path=${encodeURIComponent(path)}`, "GET entry", EntryResponse),
    entries: (paths) => call("POST", `${base}/entries/read`, "POST entries/read", ReadEntriesResponse, { paths }),
    version: (path, version) => call("GET", `${base}/version?path=${encodeURIComponent(path)}&version=${version}`, "GET version", VersionResponse),
    history: (path) => call("GET", `${base}/history?path=${encodeURIComponent(path)}`, "GET history", HistoryResponse),
    restore: (request) => call("POST", `${base}/restore`, "POST restore", AppliedWriteResponse, request),
    openConflicts: () => call("GET", `${base}/conflicts?status=open`, "GET conflicts", ConflictsResponse),
    resolveConflict: (id, request) =>
      call("POST", `${base}/conflicts/${encodeURIComponent(id)}/resolve`, "POST resolve", AppliedResult, request),
    blockReport: async (report) => {
      await call("POST", `${base}/block-reports`, "POST block-reports", null, report);
    },
    scanPolicy: () => call("GET", `${server}/v1/team/scan-policy`, "GET scan-policy", ScanPolicyResponse),
    serverInfo: () => call("GET", `${server}/v1/server`, "GET server", ServerInfoResponse),
    heads: (after, limit) =>
      call("GET", `${base}/heads?limit=${limit}${after === undefined ? "" : `&after=${encodeURIComponent(after)}`}`, "GET heads", HeadsResponse),
    findVersions: (request) => call("POST", `${base}/versions/find`, "POST versions/find", FindVersionsResponse, request),
    whoami: () => call("GET", `${server}/v1/team/whoami`, "GET whoami", WhoamiResponse),
    requestBypass: (request) => call("POST", `${server}/v1/team/bypasses`, "POST bypasses", BypassResponse, request),
    bypass: (id) => call("GET", `${server}/v1/team/bypasses/${encodeURIComponent(id)}`, "GET bypass", BypassResponse),
    bypasses: (before) =>
      call("GET", `${server}/v1/team/bypasses?status=all&limit=500${before === undefined ? "" : `&before=${encodeURIComponent(before)}`}`, "GET bypasses", BypassList),
  };
}
