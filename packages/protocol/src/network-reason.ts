/**
 * Why a request never got an answer, in words a user can act on: the cause's code (ECONNREFUSED,
 * ENOTFOUND...) with what it means for the server's URL, instead of fetch's bare "fetch failed" or
 * "bad port". Shared by the client and the server's admin commands (both call the server with fetch).
 */
import { FETCH_BAD_PORTS } from "./bad-ports.js";
/** The host and port a URL connects to (the scheme's default port when none is written). */
function hostPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

/** What a cause code means for `url`; undefined for a code without a known meaning. */
function meaning(code: string, url: URL): string | undefined {
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused: nothing listens on ${hostPort(url)}; is the server running, on that port?`;
    case "ENOTFOUND":
      return `host ${url.hostname} not found (DNS)`;
    case "EAI_AGAIN":
      return `host ${url.hostname} could not be looked up now (DNS unavailable)`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no route to ${url.hostname}`;
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return `connecting to ${hostPort(url)} timed out`;
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return `the connection to ${hostPort(url)} was closed before an answer`;
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "CERT_HAS_EXPIRED":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `the server's TLS certificate is not trusted`;
    case "EPROTO":
    case "ERR_SSL_WRONG_VERSION_NUMBER":
      return `TLS failed (an https:// URL for a server that speaks http?)`;
    default:
      return undefined;
  }
}

/**
 * The reason a request to `server` (a base URL) got no answer, from fetch's (or ky's) error.
 * @returns e.g. `connection refused: nothing listens on 127.0.0.1:8080; ... (ECONNREFUSED)`, or the
 *   cause's own code or message when it has no known meaning.
 */
export function describeNetworkError(err: unknown, server: string): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code;
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    url = undefined;
  }
  if (url && (e.cause?.message === "bad port" || e.message === "bad port" || FETCH_BAD_PORTS.has(Number(url.port)))) {
    return `port ${url.port} is one fetch never connects to (a WHATWG "bad port"); the server must listen on another port`;
  }
  const known = code !== undefined && url ? meaning(code, url) : undefined;
  if (known) return `${known} (${code})`;
  return code ?? e.cause?.message ?? e.message ?? String(err);
}
