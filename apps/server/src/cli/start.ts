/**
 * `teammem-server start`: serve HTTP until SIGINT or SIGTERM (or the context's signal), then close
 * gracefully (no new connections; in-flight requests finish their transactions; the database
 * closes, the data folder's lock is released) and resolve. Bounded: requests still running after
 * TEAMMEM_SHUTDOWN_TIMEOUT_MS (default 10 s) are abandoned and the process exits 1 (their
 * transactions roll back when the connections drop). A second signal during the shutdown gets
 * Node's default action: the process ends. Losing the embedded data folder's lock while serving
 * stops the server too, with exit 1: another process may open the folder, and PGlite admits one.
 */
import type { Command } from "@commander-js/extra-typings";
import { readServerEnv, startServer } from "../server.js";
import { CliError, DEFAULT_DATA_DIR, EXIT, dataDirOption, err, parseHost, parsePort, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("start")
    .description("apply migrations and serve HTTP; the first start prints an admin token and the client command")
    .option("--host <host>", "address to listen on: an IP address or a host name (default: HOST or 127.0.0.1)", parseHost)
    .option("--port <port>", "port to listen on, 0 for any free one (default: PORT or 8080)", parsePort)
    .addOption(dataDirOption())
    .action(async (o) => {
      const env = readServerEnv(ctx.env);
      const running = await startServer({
        host: o.host ?? env.HOST ?? "127.0.0.1",
        port: o.port ?? env.PORT ?? 8080,
        dataDir: o.dataDir ?? env.TEAMMEM_DATA_DIR ?? DEFAULT_DATA_DIR,
        env,
        print: (text) => ctx.io.stdout(text + "\n"),
        log: { write: (text) => ctx.io.stderr(text) },
        notice: (line) => err(ctx, line),
      });
      const stop = stopRequested(ctx.signal);
      const lost = await Promise.race([stop.requested.then(() => null), running.lockLost]);
      stop.cancel();
      if (lost) {
        await running.close().catch(() => undefined);
        throw new CliError(`the data folder's lock was lost while serving (${lost.message}); stopped, so that no second process opens the embedded database`);
      }
      const timeoutMs = env.TEAMMEM_SHUTDOWN_TIMEOUT_MS ?? 10_000;
      err(ctx, `teammem-server: shutting down (in-flight requests get up to ${timeoutMs} ms)`);
      const timer = setTimeout(() => {
        err(ctx, `teammem-server: requests still running after ${timeoutMs} ms; exiting without them (their transactions roll back)`);
        // The one forced exit: what still runs holds sockets and connections that would keep the process alive.
        process.exit(EXIT.failure);
      }, timeoutMs);
      timer.unref();
      try {
        await running.close();
      } finally {
        clearTimeout(timer);
      }
      err(ctx, "teammem-server: stopped");
    });
}

/** `requested` settles at the first SIGINT or SIGTERM, or when `signal` aborts; `cancel` removes the listeners (also done then). */
function stopRequested(signal: AbortSignal | undefined): { requested: Promise<void>; cancel(): void } {
  let cancel = () => undefined as void;
  const requested = new Promise<void>((resolve) => {
    const stop = () => {
      cancel();
      resolve();
    };
    cancel = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      signal?.removeEventListener("abort", stop);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop);
  });
  return { requested, cancel };
}
