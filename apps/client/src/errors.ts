import type { ErrorCode } from "@teammem/protocol";

/** Base of every error the client reports to the user; `exitCode` is what the CLI exits with. */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad command-line input or a folder not set up for the command: exit 2. */
export class UsageError extends ClientError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** The server could not be reached (refused, DNS, timeout). Nothing was changed on the server. */
export class NetworkError extends ClientError {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`cannot reach server ${server}: ${reason}`);
  }
}

/**
 * The server answered with an error body `{ code, message, details? }` (or something that is not
 * one, then `code` is `internal_error`). `retry` is the protocol's verdict for `code`.
 */
export class ServerError extends ClientError {
  constructor(
    readonly server: string,
    readonly status: number,
    readonly code: ErrorCode,
    readonly serverMessage: string,
    readonly retry: boolean,
    readonly details?: Record<string, unknown>,
  ) {
    super(`server ${server} answered ${status} ${code}: ${serverMessage}`);
  }
}

/** The server answered 2xx with a body that does not match the protocol. */
export class ProtocolError extends ClientError {
  constructor(server: string, what: string) {
    super(`server ${server} sent an unexpected reply to ${what} (is it a teammem server of this version?)`);
  }
}

/** The state folder holds something unreadable (corrupt JSON, wrong shape). */
export class StateError extends ClientError {
  constructor(file: string, problem: string) {
    super(`state file ${file} is unreadable: ${problem}`);
  }
}
