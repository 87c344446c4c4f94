/**
 * The admin API client. The token lives in this closure only: never in the URL, storage or a
 * cookie. Every request is same-origin, `no-store`, without credentials (cookies).
 */

/** A refusal of the server: its status, stable code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface Api {
  /** GET `path` with `query` (empty values left out) → the JSON body. @throws ApiError */
  get<T>(path: string, query?: Query): Promise<T>;
  /** POST/PUT/DELETE with a JSON body → the JSON body. @throws ApiError */
  send<T>(method: "POST" | "PUT" | "DELETE", path: string, body?: unknown, query?: Query): Promise<T>;
  /** GET `path` → the body as a Blob of its content type (an export). @throws ApiError */
  download(path: string, query?: Query): Promise<Blob>;
}

function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** An API client speaking for `token`. */
export function createApi(token: string): Api {
  async function fetchOk(method: string, path: string, body: unknown, query: Query | undefined, accept: string): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(url(path, query), {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
      });
    } catch {
      throw new ApiError(0, "network_error", "the server did not answer (network error)");
    }
    if (!res.ok) {
      const err = (parse(await res.text()) ?? {}) as { code?: string; message?: string };
      throw new ApiError(res.status, err.code ?? `http_${res.status}`, err.message ?? `HTTP ${res.status}`);
    }
    return res;
  }
  const request = async <T>(method: string, path: string, body: unknown, query?: Query): Promise<T> =>
    parse(await (await fetchOk(method, path, body, query, "application/json")).text()) as T;
  return {
    get: (path, query) => request("GET", path, undefined, query),
    send: (method, path, body, query) => request(method, path, body, query),
    download: async (path, query) => (await fetchOk("GET", path, undefined, query, "*/*")).blob(),
  };
}

/** `/v1/namespaces/<name>` with the name as one percent-encoded segment. */
export function nsPath(namespace: string, rest = ""): string {
  return `/v1/namespaces/${encodeURIComponent(namespace)}${rest}`;
}

/** A fresh operation id (8-128 of [A-Za-z0-9._:-]); works outside secure contexts too. */
export function newOpId(label: string): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `${label}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
