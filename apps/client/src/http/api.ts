/**
 * The client's HTTP calls to one namespace of a teammem server. Every reply is parsed with the
 * protocol's zod schemas; error replies become a {@link ServerError} carrying the stable code,
 * unreachable servers a {@link NetworkError}. The token only ever goes into the Authorization header.
 */
import { z } from "zod";
import {
  BatchResponse,
  AppliedResult,
  ChangesResponse,
  codeForStatus,
  ConflictsResponse,
  EntryResponse,
  ERRORS,
  ErrorBody,
  NamespaceResponse,
  ScanPolicyResponse,
  type BatchRequest,
  type BlockReport,
  type ResolveConflictRequest,
} from "@teammem/protocol";
import { NetworkError, ProtocolError, ServerError } from "../errors.js";

export interface ApiOptions {
  /** Base URL, e.g. `http://127.0.0.1:8080` or `https://host/teammem`. */
  readonly server: string;
  readonly namespace: string;
  readonly token: string;
  /** Per-request timeout in milliseconds (default 30 000). */
  readonly timeoutMs?: number;
}


export interface Api {
  readonly server: string;
  /** Creates the namespace if absent (PUT, idempotent). */
  ensureNamespace(): Promise<NamespaceResponse>;
  /** Changes with cursor > `since`, at most `limit` (1-1000). */
  changes(since: number, limit: number): Promise<ChangesResponse>;
  /** Sends a batch; one result per operation, in order. */
  batch(request: BatchRequest): Promise<BatchResponse>;
  /** The head of one entry (404 not_found: never existed). */
  entry(path: string): Promise<EntryResponse>;
  /** Open conflict records of the namespace, oldest first. */
  openConflicts(): Promise<ConflictsResponse>;
  /** Resolves one conflict record by writing `request`'s content (or delete) as the new head. */
  resolveConflict(id: string, request: ResolveConflictRequest): Promise<z.infer<typeof AppliedResult>>;
  /** Tells the server (audit log) that a file was held back; metadata only. */
  blockReport(report: BlockReport): Promise<void>;
  /** The team's scan policy (fingerprint key); any role. */
  scanPolicy(): Promise<ScanPolicyResponse>;
}

function networkReason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return `no answer within ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

export function createApi(options: ApiOptions): Api {
  const server = options.server.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const base = `${server}/v1/namespaces/${encodeURIComponent(options.namespace)}`;

  async function call<S extends z.ZodType>(method: string, url: string, what: string, schema: S | null, body?: unknown): Promise<z.infer<S>> {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new NetworkError(server, networkReason(err, timeoutMs));
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new NetworkError(server, networkReason(err, timeoutMs));
    }
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      // The code in the body is the contract; a reply without one (a proxy's 502, 413...) gets the generic code of its status.
      const parsed = ErrorBody.safeParse(json);
      const code = parsed.success ? parsed.data.code : codeForStatus(res.status);
      const message = parsed.success ? parsed.data.message : `HTTP ${res.status} ${res.statusText}`;
      throw new ServerError(server, res.status, code, message, ERRORS[code].retry, parsed.success ? parsed.data.details : undefined);
    }
    if (schema === null) return undefined as z.infer<S>;
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new ProtocolError(server, what);
    return parsed.data;
  }

  return {
    server,
    ensureNamespace: () => call("PUT", base, "PUT namespace", NamespaceResponse),
    changes: (since, limit) => call("GET", `${base}/changes?since=${since}&limit=${limit}`, "GET changes", ChangesResponse),
    batch: (request) => call("POST", `${base}/batch`, "POST batch", BatchResponse, request),
    entry: (path) => call("GET", `${base}/entry?path=${encodeURIComponent(path)}`, "GET entry", EntryResponse),
    openConflicts: () => call("GET", `${base}/conflicts?status=open`, "GET conflicts", ConflictsResponse),
    resolveConflict: (id, request) =>
      call("POST", `${base}/conflicts/${encodeURIComponent(id)}/resolve`, "POST resolve", AppliedResult, request),
    blockReport: async (report) => {
      await call("POST", `${base}/block-reports`, "POST block-reports", null, report);
    },
    scanPolicy: () => call("GET", `${server}/v1/team/scan-policy`, "GET scan-policy", ScanPolicyResponse),
  };
}
