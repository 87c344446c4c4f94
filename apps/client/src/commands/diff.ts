/**
 * `teammem diff PATH [--from N] [--to M] [--json]`: a unified diff (3 lines of context, jsdiff, the
 * server's `GET /diff` format) of one team file between two of its states:
 * - no options: the server's head → the working file (what a sync would send, or what a teammate
 *   changed that this folder has not pulled yet);
 * - `--from N`: version N → the working file;
 * - `--to M`: version M-1 → version M (what version M changed);
 * - both: version N → version M.
 * Version 0, a tombstone, a path the server never had and an absent working file are the empty
 * text. Reads only (no lock, no state change); prints nothing on stdout when there is no
 * difference. Exit 2 for bad paths and versions (see entry-args.ts).
 */
import { createTwoFilesPatch } from "diff";
import { ClientError, ServerError } from "../errors.js";
import { createApi, type Api } from "../http/api.js";
import { readTeamFile } from "../local/team-files.js";
import { requireConfig } from "../state/config.js";
import { displayPath, type Layout } from "../state/layout.js";
import { layoutFor, requireToken, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";
import { checkSpelling, missingOnServer, teamFileArg, versionArg, notRegularFile } from "./entry-args.js";

export const name = "diff";
export const summary = "show a unified diff of a team file: server head vs working file, or between versions (--from N, --to M)";

function define(command: CommonCommand) {
  return command
    .argument("<path>", "the team file, e.g. team/build.md")
    .option("--from <version>", "the old side: this server version (default: the server's head; with --to M only: M-1; 0: empty)")
    .option("--to <version>", "the new side: this server version (default: the working file)")
    .option("--json", "print the diff as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (path, options) => exit(await run(path, options, ctx)));
}

/** One side of the diff: `version` null is the working file. */
interface Side {
  readonly version: number | null;
  readonly label: string;
  readonly content: string;
}

async function serverVersion(api: Api, path: string, version: number): Promise<Side> {
  const label = `${displayPath(path)}@v${version}`;
  if (version === 0) return { version, label, content: "" };
  const v = await api.version(path, version).catch((err: unknown) => {
    throw missingOnServer(err, path, version);
  });
  return { version, label, content: v.content ?? "" };
}

async function serverHead(api: Api, path: string): Promise<Side> {
  try {
    const head = await api.entry(path);
    return { version: head.version, label: `${displayPath(path)}@v${head.version}`, content: head.content ?? "" };
  } catch (err) {
    // A file never synced diffs against nothing, like a new file in git.
    if (err instanceof ServerError && err.code === "not_found") return { version: 0, label: `${displayPath(path)}@v0`, content: "" };
    throw err;
  }
}

async function workingFile(layout: Layout, path: string): Promise<Side> {
  const file = await readTeamFile(layout, path);
  if (file.kind === "unsafe") throw notRegularFile(path, file) ?? new ClientError(`cannot read ${displayPath(path)}: ${file.reason}`);
  return { version: null, label: `${displayPath(path)} (working file)`, content: file.kind === "file" ? file.content : "" };
}

async function run(rawPath: string, options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const layout = await layoutFor(options, ctx);
  const config = await requireConfig(layout);
  const path = teamFileArg(layout, rawPath);
  await checkSpelling(layout, path);
  const from = options.from === undefined ? undefined : versionArg(options.from, "--from", true);
  const to = options.to === undefined ? undefined : versionArg(options.to, "--to");
  const token = requireToken(options, ctx, config);
  const api = createApi({ server: config.server, namespace: config.namespace, token });

  const newSide = to === undefined ? await workingFile(layout, path) : await serverVersion(api, path, to);
  const oldSide =
    from !== undefined ? await serverVersion(api, path, from) : to !== undefined ? await serverVersion(api, path, to - 1) : await serverHead(api, path);
  const changed = oldSide.content !== newSide.content;
  const diff = changed ? createTwoFilesPatch(oldSide.label, newSide.label, oldSide.content, newSide.content, undefined, undefined, { context: 3 }) : "";
  if (options.json) {
    const side = (s: Side) => ({ version: s.version, label: s.label });
    ctx.io.stdout(JSON.stringify({ ok: true, path: displayPath(path), from: side(oldSide), to: side(newSide), changed, diff }, null, 2) + "\n");
  } else if (changed) ctx.io.stdout(diff);
  else ctx.io.stderr(`teammem: no differences between ${oldSide.label} and ${newSide.label}\n`);
  return 0;
}
