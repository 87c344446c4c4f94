/**
 * Where the server listens: the host rule (checked with the environment and `--host`), and the
 * address bound once, before anything is opened and kept for the server, so a host that does not
 * resolve, an address no interface has, a privileged or busy port is reported at once, naming
 * `host:port`, instead of after the wait for the database.
 */
import { lookup } from "node:dns/promises";
import { createServer, isIP, type AddressInfo, type Server, type Socket } from "node:net";

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
 * A bound and listening `host:port` not yet serving: taken before the database is opened, so an
 * unusable address fails at once, and handed to the HTTP server with {@link adopt} (no second
 * bind, so no window in which another process can take the port).
 */
export interface ReservedAddress {
  /** The IP address bound (`host` itself, or what its name resolved to). */
  readonly address: string;
  /** The port bound (the one chosen by the system for port 0). */
  readonly port: number;
  /**
   * Listen options that make `server` (Node's `server.listen` through Fastify's `listen`) serve on
   * the reserved socket; then hands it the connections accepted meanwhile. Call once.
   */
  adopt(server: Server): { host: string; handle: unknown };
  /** Closes the socket and the connections accepted meanwhile, unless a server listens on it: for a start that fails first. */
  release(): Promise<void>;
}

/** At most this many connections arriving before the server is ready are kept for it; more are dropped. */
const MAX_EARLY_CONNECTIONS = 511;

/**
 * Binds and listens on `host:port` (a host name resolved first) for {@link ReservedAddress.adopt}.
 * Connections arriving before the server is ready are held, paused, and handed to it.
 * @throws ListenError when the address cannot be used (see {@link listenFailure}); another error as it is.
 */
export async function reserveListenAddress(host: string, port: number): Promise<ReservedAddress> {
  let address = host;
  if (isIP(host) === 0) {
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      throw listenFailure(err, host, port) ?? err;
    }
  }
  const early: Socket[] = [];
  const probe = createServer({ pauseOnConnect: true }, (socket) => {
    if (early.length >= MAX_EARLY_CONNECTIONS) socket.destroy();
    else early.push(socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: address, port, exclusive: true }, () => resolve());
    });
  } catch (err) {
    throw listenFailure(err, host, port) ?? err;
  }
  let adopted = false;
  let served = false; // the adopting server listens on the socket: closing it is that server's job
  return {
    address,
    port: (probe.address() as AddressInfo).port,
    adopt(server) {
      if (adopted) throw new Error("the reserved address was adopted already");
      adopted = true;
      // Node's listen takes over a listening handle ("anything with an underlying _handle member",
      // net docs); connections accepted until then are given to the new owner once it listens.
      const handle = (probe as unknown as { _handle: unknown })._handle;
      server.once("listening", () => {
        served = true;
        for (const socket of early.splice(0)) {
          server.emit("connection", socket);
          socket.resume();
        }
      });
      return { host: address, handle };
    },
    async release() {
      if (served) return;
      served = true;
      for (const socket of early.splice(0)) socket.destroy();
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    },
  };
}
