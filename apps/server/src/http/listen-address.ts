/**
 * Where the server listens: the host rule (checked with the environment and `--host`) and a check
 * that binds the address once before anything is opened, so a host that does not resolve, an
 * address no interface has, a privileged or busy port is reported at once, naming `host:port`,
 * instead of after the wait for the database.
 */
import { lookup } from "node:dns/promises";
import { createServer, isIP } from "node:net";

/** What a listen host may be (the message of its refusal, after `HOST: ` or `--host`). */
export const LISTEN_HOST_RULE = "must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name such as localhost";

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Whether `host` is an IPv4 or IPv6 address, or a DNS host name (dot-separated labels of letters,
 * digits and inner hyphens, 1-63 characters each, 253 in all, not all digits: `999.1.1.1` is
 * neither an address nor a name).
 */
export function isListenHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split(".");
  return labels.every((l) => LABEL.test(l)) && !labels.every((l) => /^\d+$/.test(l));
}

/** The server cannot listen on the address it was given; `message` says why and names `host:port`. */
export class ListenError extends Error {
  readonly code = "TEAMMEM_LISTEN_FAILED";
}

/** `host:port` as a URL shows it (`[::1]:8080`). */
const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/**
 * The {@link ListenError} for `err`, a failed `listen` on `host:port` (EADDRINUSE, EADDRNOTAVAIL,
 * EACCES, a host that does not resolve), or null for an error that is not about the address.
 */
export function listenFailure(err: unknown, host: string, port: number): ListenError | null {
  const code = (err as { code?: unknown } | null)?.code;
  const where = `cannot listen on ${hostPort(host, port)}`;
  switch (code) {
    case "EADDRINUSE":
      return new ListenError(`${where}: the address is already in use; stop the process using it or choose another port with --port <port> (--port 0: any free port)`);
    case "EADDRNOTAVAIL":
      return new ListenError(`${where}: no network interface of this machine has the address ${host}; use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address of this machine, with --host or HOST`);
    case "EACCES":
    case "EPERM":
      return new ListenError(`${where}: permission denied (ports below 1024 need privileges); choose a port from 1024 up with --port or PORT`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
    case "EAI_NONAME":
      return new ListenError(`${where}: the host name ${host} does not resolve (${code}); use an IP address such as 127.0.0.1 or 0.0.0.0, or a name this machine resolves, with --host or HOST`);
    default:
      return null;
  }
}

/**
 * Binds `host:port` once and closes it again, so a start fails before opening its database.
 * @throws ListenError when the address cannot be used (see {@link listenFailure}); another error as it is.
 */
export async function checkListenAddress(host: string, port: number): Promise<void> {
  let address = host;
  if (isIP(host) === 0) {
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      throw listenFailure(err, host, port) ?? err;
    }
  }
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: address, port, exclusive: true }, () => resolve());
    });
  } catch (err) {
    throw listenFailure(err, host, port) ?? err;
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}
