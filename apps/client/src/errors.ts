import type { ErrorCode } from "@teammem/protocol";
import { redact } from "@teammem/scanner";

/**
 * Stable codes of the errors the client itself reports (the server's codes come from the protocol
 * registry). A code never changes meaning; messages may be reworded. Documented in the client's
 * README ("Error codes"); `--json` prints `{ ok: false, error: { code, message } }`.
 */
export const CLIENT_ERROR_CODES = [
  /** Bad or missing option or argument, folder not set up (exit 2). */
  "usage_error",
  /** The memory folder given is the `team/` scope of a set-up memory folder, or lies under it (exit 2). */
  "dir_is_team_scope",
  /** `init`: the folder lies inside a set-up memory folder's files (exit 2). */
  "dir_in_memory_folder",
  /** A path outside `team/`: private, never leaves the machine (exit 2). */
  "private_path",
  /** A path outside the memory folder (exit 2). */
  "outside_folder",
  /** A path the protocol refuses as an entry path, or `team/` itself where a file is needed (exit 2). */
  "invalid_path",
  /** A team path with no history on the server (exit 2). */
  "unknown_path",
  /** `--version`/`--from`/`--to` not a whole number in range (exit 2). */
  "invalid_version",
  /** A team path given is not on disk as spelt, but a name differing only by letter case is (exit 2). */
  "path_case_mismatch",
  /** A path given to scan or push does not exist (for push: nor is it a synced file whose deletion to send) (exit 2). */
  "no_such_file",
  /** A path given is not a regular file: a FIFO, socket or device (or, where a file is expected, a folder); never opened (exit 2). */
  "not_regular_file",
  /** A path given to push lies under a symlinked folder in team/: never followed, not synced (exit 2). */
  "symlink_path",
  /** A version the entry does not have on the server (exit 2). */
  "unknown_version",
  /** The file has local changes a command would overwrite (exit 1). */
  "local_changes",
  /** A credential in content the command would write or send (exit 1). */
  "secret_detected",
  /** A sync refused as a mass delete (exit 1). */
  "mass_delete_refused",
  /** Another teammem command holds the folder (exit 1). */
  "folder_busy",
  /** Another `teammem watch` runs on the folder (exit 1). */
  "watch_running",
  /** The server could not be reached (exit 1). */
  "network_error",
  /** The server's reply does not match the protocol (exit 1). */
  "protocol_error",
  /** The server answered with a redirect (3xx), which the client never follows (exit 1). */
  "server_redirect",
  /** A state file teammem cannot rebuild (config, a queued operation, conflicts.json) is damaged; the message says what to do (exit 1). */
  "state_unreadable",
  /** The disk holding the memory folder is full, or the user's quota is spent (ENOSPC, EDQUOT; exit 1). */
  "disk_full",
  /** A file or folder teammem must write is read-only or not the user's (EROFS, EACCES, EPERM; exit 1). */
  "not_writable",
  /** The process or the system has too many files open (EMFILE, ENFILE; exit 1). */
  "too_many_open_files",
  /** Any other refusal or local failure (exit 1). */
  "failed",
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * Base of every error the client reports to the user; `exitCode` is what the CLI exits with, `code`
 * the stable code. The message is redacted by the scanner (a credential in echoed input, a server's
 * message or a URL shows as `[REDACTED:<rule>]`), so printing it never shows one.
 */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly code: ClientErrorCode | ErrorCode = "failed",
  ) {
    super(redact(message));
    this.name = new.target.name;
  }
}

/** Bad command-line input or a folder not set up for the command: exit 2. */
export class UsageError extends ClientError {
  constructor(message: string, code: ClientErrorCode = "usage_error") {
    super(message, 2, code);
  }
}

/** The server could not be reached (refused, DNS, timeout). Nothing was changed on the server. */
export class NetworkError extends ClientError {
  constructor(
    readonly server: string,
    readonly reason: string,
    /** For a subclass: its code and whole message. */
    own?: { code: ClientErrorCode; message: string },
  ) {
    super(own?.message ?? `cannot reach server ${server}: ${reason}`, 1, own?.code ?? "network_error");
  }
}

/**
 * The server answered a request with a redirect (HTTP 3xx), which the client never follows: a
 * request, and a batch's team files, go only to the configured server, never to where a server,
 * proxy or captive portal points (try16 F8). Nothing was sent there; what was queued stays queued.
 * A {@link NetworkError} (code `server_redirect`), so every caller treats it as a server not reached.
 */
export class RedirectError extends NetworkError {
  constructor(
    server: string,
    readonly status: number,
    /** Where the reply pointed: its origin (its path when on the server's own origin), or "nowhere" without a Location header. */
    readonly target: string,
  ) {
    super(server, `it answered ${status}, a redirect to ${target}, which teammem does not follow`, {
      code: "server_redirect",
      message:
        `server ${server} answered with a redirect (HTTP ${status}) to ${target}; teammem never follows one, nothing was sent there: ` +
        "check --server / the configured server URL (.teammem/config.json; teammem init --server URL --moved to change it)",
    });
  }
}

/**
 * The server answered with an error body `{ code, message, details? }` (or something that is not
 * one, then `code` is `internal_error`). `retry` is the protocol's verdict for `code`.
 * `serverMessage`: the server's message, redacted (a server echoing a credential never shows it).
 */
export class ServerError extends ClientError {
  readonly serverMessage: string;
  constructor(
    readonly server: string,
    readonly status: number,
    override readonly code: ErrorCode,
    serverMessage: string,
    readonly retry: boolean,
    readonly details?: Record<string, unknown>,
  ) {
    super(`server ${server} answered ${status} ${code}: ${serverMessage}`, 1, code);
    this.serverMessage = redact(serverMessage);
  }
}

/**
 * The server refused the token itself (401: bad, expired, revoked or not yet valid) or its access
 * to the namespace (403): the whole run is refused, so a command prints this one error (with its
 * code) and no summary of work that never happened.
 */
export function isTokenRefusal(err: unknown): err is ServerError {
  return err instanceof ServerError && isTokenRefusalCode(err.code);
}

/** The codes of {@link isTokenRefusal}: the server refused the token (401) or its access to the namespace (403). */
const TOKEN_REFUSAL_CODES: ReadonlySet<string> = new Set<ErrorCode>(["unauthorized", "token_expired", "token_revoked", "token_not_yet_valid", "forbidden"]);

/**
 * What the user does about a token the server refused (see {@link isTokenRefusal}): until then no
 * sync, push or watch sends anything, so queued changes wait for it.
 */
export function tokenRefusalFix(code: string): string {
  return code === "forbidden"
    ? "get a token that may use this namespace (teammem init --token T, or TEAMMEM_TOKEN)"
    : "get a new token (teammem init --token T, or TEAMMEM_TOKEN)";
}

/** Whether a server error `code` refuses the token itself or its access (see {@link isTokenRefusal}). */
export function isTokenRefusalCode(code: string | undefined): boolean {
  return code !== undefined && TOKEN_REFUSAL_CODES.has(code);
}

/** The server answered 2xx with a body that does not match the protocol. */
export class ProtocolError extends ClientError {
  constructor(server: string, what: string) {
    super(`server ${server} sent an unexpected reply to ${what} (is it a teammem server of this version?)`, 1, "protocol_error");
  }
}

/** The state folder holds something unreadable (corrupt JSON, wrong shape). */
export class StateError extends ClientError {
  /**
   * @param file the state file's path; @param problem what is wrong (`not JSON`, the schema's complaint);
   * @param hint what the user can do, for a file teammem cannot rebuild (appended after `; `).
   */
  constructor(
    readonly file: string,
    readonly problem: string,
    hint?: string,
  ) {
    super(`state file ${file} is unreadable: ${problem}${hint ? `; ${hint}` : ""}`, 1, "state_unreadable");
  }
}

/** What each local failure {@link localFailure} names means, and what the user does about it. */
const LOCAL_FAILURES: Record<string, { code: ClientErrorCode; cause: string; action: string }> = {
  ENOSPC: { code: "disk_full", cause: "the disk is full", action: "free some space" },
  EDQUOT: { code: "disk_full", cause: "the disk quota is spent", action: "free some space" },
  EROFS: { code: "not_writable", cause: "the file system is read-only", action: "mount it writable or use a memory folder on a writable disk" },
  EACCES: { code: "not_writable", cause: "permission denied", action: "check the owner and mode of the memory folder and .teammem/ (they must be yours and writable)" },
  EPERM: { code: "not_writable", cause: "operation not permitted", action: "check the owner and mode of the memory folder and .teammem/ (they must be yours and writable)" },
  EMFILE: { code: "too_many_open_files", cause: "too many files are open in this process", action: "raise the open-file limit (ulimit -n)" },
  ENFILE: { code: "too_many_open_files", cause: "too many files are open on this system", action: "close some programs" },
};

/**
 * A local file-system failure the user can act on, as a {@link ClientError} (exit 1) with its own
 * code and what to do: `disk_full` (ENOSPC, EDQUOT), `not_writable` (EROFS, EACCES, EPERM),
 * `too_many_open_files` (EMFILE, ENFILE); undefined for any other error. The message names the
 * system call and path where Node's error has them (a `write` to an open file has no path) and says that nothing kept before is lost: state files, queued operations and
 * pulled team files are written whole to a temporary file and renamed over the old one
 * (`state/atomic.ts`), so a failed write leaves the old file as it was (try17 M6).
 */
export function localFailure(err: unknown): ClientError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const known = typeof e?.code === "string" ? LOCAL_FAILURES[e.code] : undefined;
  if (!known) return undefined;
  const where = [e!.syscall, e!.path].filter((part) => typeof part === "string").join(" ");
  return new ClientError(
    `${known.cause} (${e!.code}${where ? `, ${where}` : ""}): nothing teammem kept before is lost (its files are replaced whole, never half-written; queued edits stay queued); ${known.action}, then run the command again`,
    1,
    known.code,
  );
}

/** Whether `err` is the server's 404 for a path it has no route for (not a teammem API path: the server URL has a wrong path). */
export function isNoRoute(err: unknown): boolean {
  return err instanceof ServerError && err.code === "not_found" && err.serverMessage.startsWith("no route ");
}

/**
 * The one wording of a 404 on a namespace's requests, whichever command met it (init, sync, push,
 * status; try18 F13): the server URL's path is not a teammem server's (no route there), or the
 * namespace does not exist and this token may not create it (`readOnly`: a reader's, or a create
 * refused). Same code (`not_found`), status and server message as `err`; only the message differs.
 */
export function namespaceNotFound(err: ServerError, namespace: string, readOnly: boolean): ServerError {
  const described = new ServerError(err.server, err.status, err.code, err.serverMessage, err.retry, err.details);
  described.message = isNoRoute(err)
    ? `server ${err.server} has no teammem API at this URL (404 not_found: no route at this path); the server URL is its base URL, e.g. http://127.0.0.1:8080`
    : `namespace ${namespace} does not exist on ${err.server}` +
      (readOnly ? " and this token may not create it (read-only); ask a member to create it (teammem init or sync with a member token)" : "");
  return described;
}
