/**
 * `teammem watch [--json]`: keeps the memory folder in sync while it runs (see
 * `watch/watch-folder.ts`): saved team files are scanned and pushed, teammates' changes are
 * pulled as the server streams them. Prints a live log (stdout; `--json`: one JSON object per
 * line). SIGINT/SIGTERM stop it: what is pending is sent (bounded time), exit 0; a second signal
 * stops it without sending (what is pending stays queued), a third exits at once (130). Exit 1 on a
 * permanent error (token refused or revoked, namespace gone), 2 on usage errors; a second watch
 * on the same folder is refused (exit 1) with the pid of the first.
 */
import { formatLiveEvent } from "../watch/live-log.js";
import { Watch } from "../watch/watch-folder.js";
import { openFolder, layoutFor, requireToken, redactingIo, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "watch";

/** After the watch has ended, longest wait for the process to exit by itself, ms. */
const EXIT_GRACE_MS = 5_000;
export const summary = "keep the folder in sync while running: push saved team files, pull teammates' changes live";

function define(command: CommonCommand) {
  return command.option("--json", "print the live log as JSON lines (one object per line)");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (options) => exit(await run(options, ctx)));
}

async function run(options: OptionsOf<typeof define>, rawCtx: CommandContext): Promise<number> {
  // Server messages and refusal reasons are printed redacted.
  const ctx: CommandContext = { ...rawCtx, io: redactingIo(rawCtx.io) };
  const layout = await layoutFor(options, ctx);
  const config = await openFolder(layout, ctx);
  const token = requireToken(options, ctx, config);
  const watch = new Watch(layout, {
    config,
    token,
    log: (event) => ctx.io.stdout(formatLiveEvent(event, new Date(), options.json === true)),
  });
  await watch.start();
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      // Ctrl-C is a person at a terminal: tell them what the wait is and how to skip it.
      if (signal === "SIGINT") ctx.io.stderr("teammem: stopping: sending pending changes (at most 10 s); Ctrl-C again to stop without sending\n");
      void watch.stop();
    } else if (signals === 2) {
      ctx.io.stderr("teammem: stopping without sending: pending changes stay queued for the next sync\n");
      void watch.stopNow();
    } else {
      process.exit(130); // the outbox is durable and the locks are taken over at once by the next command
    }
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    const end = await watch.ended;
    if (end.exitCode !== 0 && !options.json) ctx.io.stderr(`teammem: ${end.message ?? "watch stopped"} [${end.code ?? "failed"}]\n`);
    // The watch has ended and released its locks: work of its own that still keeps the process
    // alive (a local step the stop could not cut off) does not keep the user waiting past the bound.
    setTimeout(() => process.exit(end.exitCode), EXIT_GRACE_MS).unref();
    return end.exitCode;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
