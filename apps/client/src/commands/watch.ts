/**
 * `teammem watch [--json]`: keeps the memory folder in sync while it runs (see
 * `watch/watch-folder.ts`): saved team files are scanned and pushed, teammates' changes are
 * pulled as the server streams them. Prints a live log (stdout; `--json`: one JSON object per
 * line). SIGINT/SIGTERM stop it: what is pending is sent (bounded time), exit 0. Exit 1 on a
 * permanent error (token refused or revoked, namespace gone), 2 on usage errors; a second watch
 * on the same folder is refused (exit 1) with the pid of the first.
 */
import { formatLiveEvent } from "../watch/live-log.js";
import { Watch } from "../watch/watch-folder.js";
import { openFolder, layoutFor, requireToken, redactingIo, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "watch";
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
  const stop = () => void watch.stop();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    const end = await watch.ended;
    if (end.exitCode !== 0 && !options.json) ctx.io.stderr(`teammem: ${end.message ?? "watch stopped"} [${end.code ?? "failed"}]\n`);
    return end.exitCode;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
