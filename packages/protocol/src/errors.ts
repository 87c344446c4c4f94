/**
 * What the server and the client know about one error code.
 * - `http`: the status an HTTP reply with this code has; null for a code only a stream connection
 *   (WebSocket) ever carries.
 * - `close`: the WebSocket close code when this error ends a stream connection (the close reason is
 *   the error code itself). 1001, 1007, 1009, 1011 and 1013 keep their RFC 6455 / IANA meaning;
 *   4000 + the HTTP status for the other errors that are HTTP errors too (4401, 4404...); 4001,
 *   4002 and 4003 ask the client for one specific action (resume, reconcile, reconnect) and no
 *   other code uses them.
 * - `retry`: whether sending the same request (or reconnecting) later, unchanged, can succeed.
 * - `retryAfter`: the HTTP reply carries `Retry-After` (whole seconds) and `details.retryAfterMs`;
 *   wait at least that long before retrying.
 */
export interface ErrorSpec {
  readonly http: number | null;
  readonly close: number;
  readonly retry: boolean;
  readonly retryAfter?: true;
}

/**
 * Every error code the server sends and the client understands. A code never changes meaning;
 * its message may be reworded. The first code listed with an HTTP status is that status's generic
 * code (see {@link codeForStatus}). ERRORS.md (beside this package's README) documents each code;
 * a test keeps the two equal, statuses, close codes and retry advice included.
 */
export const ERRORS = {
  invalid_request: { http: 400, close: 4400, retry: false },
  invalid_path: { http: 400, close: 4400, retry: false },
  invalid_utf8: { http: 400, close: 1007, retry: false },
  unauthorized: { http: 401, close: 4401, retry: false },
  token_expired: { http: 401, close: 4401, retry: false },
  token_revoked: { http: 401, close: 4401, retry: false },
  token_not_yet_valid: { http: 401, close: 4401, retry: false },
  forbidden: { http: 403, close: 4403, retry: false },
  not_found: { http: 404, close: 4404, retry: false },
  method_not_allowed: { http: 405, close: 4405, retry: false },
  version_conflict: { http: 409, close: 4409, retry: false },
  path_case_conflict: { http: 409, close: 4409, retry: false },
  path_type_conflict: { http: 409, close: 4409, retry: false },
  namespace_name_conflict: { http: 409, close: 4409, retry: false },
  already_exists: { http: 409, close: 4409, retry: false },
  last_admin_token: { http: 409, close: 4409, retry: false },
  last_admin: { http: 409, close: 4409, retry: false },
  fingerprint_key_stale: { http: 409, close: 4409, retry: false },
  bypass_not_pending: { http: 409, close: 4409, retry: false },
  bypass_not_approved: { http: 409, close: 4409, retry: false },
  merge_holds_credential: { http: 409, close: 4409, retry: false },
  stale_cursor: { http: 409, close: 4002, retry: false },
  body_too_large: { http: 413, close: 1009, retry: false },
  entry_too_large: { http: 413, close: 4413, retry: false },
  batch_too_large: { http: 413, close: 4413, retry: false },
  namespace_full: { http: 422, close: 4422, retry: false },
  secret_detected: { http: 422, close: 4422, retry: false },
  unsupported_media_type: { http: 415, close: 4415, retry: false },
  headers_too_large: { http: 431, close: 4431, retry: false },
  upgrade_required: { http: 426, close: 4426, retry: false },
  request_timeout: { http: 408, close: 4408, retry: true },
  rate_limited: { http: 429, close: 4429, retry: true, retryAfter: true },
  slow_consumer: { http: null, close: 4001, retry: true },
  idle_timeout: { http: null, close: 4003, retry: true },
  database_busy: { http: 503, close: 1013, retry: true, retryAfter: true },
  server_shutting_down: { http: 503, close: 1001, retry: true, retryAfter: true },
  storage_full: { http: 503, close: 1013, retry: false, retryAfter: true },
  internal_error: { http: 500, close: 1011, retry: true },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/**
 * The code to assume for an HTTP error reply that carries no teammem error body (e.g. a proxy's
 * 502 or 413): the first registry code with that status; otherwise `internal_error` for 5xx and
 * `invalid_request` for anything else.
 */
export function codeForStatus(status: number): ErrorCode {
  const generic = ERROR_CODES.find((code) => ERRORS[code].http === status);
  if (generic) return generic;
  return status >= 500 ? "internal_error" : "invalid_request";
}
