/**
 * `teammem hooks install|uninstall --agent claude-code [--scope user|project|local] [--repo PATH] [--command CMD]`:
 * adds teammem's hooks to a Claude Code settings file, merged with what is there (idempotent:
 * installing twice leaves one set), or removes them, touching no other hook or setting. The hooks
 * (agents/claude-hooks/settings.ts CLAUDE_HOOKS): a quick sync at session start, the pre-write
 * guard, a push after each write to the team scope.
 */
import { constants } from "node:fs";
import { access, realpath } from "node:fs/promises";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "@commander-js/extra-typings";
import { claudeConfigDir } from "../agents/agent-folders.js";
import {
  CLAUDE_HOOKS,
  readSettings,
  shellQuote,
  teammemHookCommands,
  withoutTeammemHooks,
  withTeammemHooks,
  writeSettings,
} from "../agents/claude-hooks/settings.js";
import { readRepo } from "../agents/git-repo.js";
import { locateFolder } from "../agents/locate-folder.js";
import { UsageError } from "../errors.js";
import { loadConfig } from "../state/config.js";
import { layoutOf } from "../state/layout.js";
import type { CommandContext } from "./common.js";

export const name = "hooks";
export const summary = "install or uninstall teammem's hooks in an agent's settings (Claude Code)";
/** Takes its own options (no --dir): see program.ts. */
export const bare = true;

const SCOPES = ["user", "project", "local"] as const;
type Scope = (typeof SCOPES)[number];

function options(command: Command) {
  return command
    .requiredOption("--agent <agent>", "the agent whose settings get the hooks: claude-code")
    .option("--scope <scope>", "user (~/.claude/settings.json, every project), project (.claude/settings.json, shared with the team) or local (.claude/settings.local.json, you only)", "user")
    .option("--repo <path>", "the project, for --scope project|local (default: current folder)")
    .option("--json", "print the result as JSON");
}

export function register(command: Command, ctx: CommandContext, exit: (code: number) => void): void {
  options(command.command("install").description("add teammem's hooks (merged with existing ones; running it again changes nothing)"))
    .option("--command <cmd>", "how the hooks run teammem (default: teammem when on PATH, else this installation's absolute path)")
    .action(async (opts) => exit(await install(opts, ctx)));
  options(command.command("uninstall").description("remove teammem's hooks (other hooks stay)")).action(async (opts) => exit(await uninstall(opts, ctx)));
}

interface HooksOptions {
  agent: string;
  scope: string;
  repo?: string | undefined;
  json?: true | undefined;
  command?: string | undefined;
}

function checkAgent(agent: string): void {
  if (agent === "codex") throw new UsageError("teammem has no hooks for Codex: run teammem sync (or teammem push PATH) from your workflow instead");
  if (agent !== "claude-code") throw new UsageError(`--agent must be claude-code (got "${agent}")`);
}

function checkScope(scope: string): Scope {
  if ((SCOPES as readonly string[]).includes(scope)) return scope as Scope;
  throw new UsageError(`--scope must be one of ${SCOPES.join(", ")} (got "${scope}")`);
}

/** The settings file of `scope`; for a project scope, the repository's (worktree) root or the folder itself. */
async function settingsFile(scope: Scope, repo: string | undefined, ctx: CommandContext): Promise<string> {
  if (scope === "user") return join(claudeConfigDir(ctx.env), "settings.json");
  if (repo !== undefined && repo.trim() === "") throw new UsageError("--repo must not be empty");
  const folder = resolve(ctx.cwd, repo ?? ".");
  const root = await readRepo(folder).then(
    (r) => r.worktreeRoot,
    async (err: unknown) => {
      if (repo !== undefined) throw err;
      return realpath(folder);
    },
  );
  return join(root, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
}

/** Whether `name` is an executable on the PATH of `env`. */
async function onPath(name: string, env: CommandContext["env"]): Promise<boolean> {
  for (const dir of (env["PATH"] ?? "").split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // next
    }
  }
  return false;
}

/** How the hooks run teammem: `--command`, else `teammem` on PATH (always for the shared project scope), else this installation. */
async function executable(opts: HooksOptions, scope: Scope, ctx: CommandContext): Promise<{ command: string; note?: string }> {
  if (opts.command !== undefined) {
    if (opts.command.trim() === "" || /[\r\n]/.test(opts.command)) throw new UsageError("--command must be one line naming how to run teammem");
    return { command: opts.command.trim() };
  }
  const found = await onPath("teammem", ctx.env);
  if (found) return { command: "teammem" };
  if (scope === "project")
    return { command: "teammem", note: "teammem is not on your PATH: the shared hooks run `teammem`, so each teammate needs it on PATH (or use --scope local --command ...)" };
  const bin = fileURLToPath(new URL("../../bin/teammem.js", import.meta.url));
  return { command: `${shellQuote(process.execPath)} ${shellQuote(bin)}` };
}

/** A note when the project's Claude Code memory folder is not set up for teammem yet (hooks then do nothing there). */
async function setupNote(opts: HooksOptions, ctx: CommandContext): Promise<string | undefined> {
  try {
    const located = await locateFolder({ agent: "claude-code" }, ctx.env, resolve(ctx.cwd, opts.repo ?? "."));
    if (await loadConfig(layoutOf(located.root))) return undefined;
    return `${located.root} is not set up for teammem yet, so the hooks do nothing for this project until you run: teammem init --agent claude-code --server URL`;
  } catch {
    return undefined;
  }
}

async function install(opts: HooksOptions, ctx: CommandContext): Promise<number> {
  checkAgent(opts.agent);
  const scope = checkScope(opts.scope);
  const file = await settingsFile(scope, opts.repo, ctx);
  const { command, note } = await executable(opts, scope, ctx);
  const settings = await readSettings(file);
  const changed = await writeSettings(file, withTeammemHooks(settings, command, file));
  const setup = await setupNote(opts, ctx);
  if (opts.json) {
    ctx.io.stdout(JSON.stringify({ file, scope, changed, hooks: CLAUDE_HOOKS.map((h) => ({ event: h.event, matcher: h.matcher, command: `${command} ${h.args}`, timeout: h.timeoutSeconds })) }, null, 2) + "\n");
  } else {
    ctx.io.stdout(
      `${changed ? "installed" : "already installed (unchanged)"}: teammem's Claude Code hooks in ${file} (${scope} settings)\n` +
        CLAUDE_HOOKS.map((h) => `  ${h.event} [${h.matcher}] ${command} ${h.args} (timeout ${h.timeoutSeconds} s): ${h.does}\n`).join("") +
        (changed ? "Claude Code reads hooks when a session starts: start a new session (or review them with /hooks).\n" : ""),
    );
  }
  for (const n of [note, setup]) if (n) ctx.io.stderr(`teammem: ${n}\n`);
  return 0;
}

async function uninstall(opts: HooksOptions, ctx: CommandContext): Promise<number> {
  checkAgent(opts.agent);
  const scope = checkScope(opts.scope);
  const file = await settingsFile(scope, opts.repo, ctx);
  const settings = await readSettings(file);
  const ours = teammemHookCommands(settings);
  const changed = ours.length > 0 && (await writeSettings(file, withoutTeammemHooks(settings, file)));
  if (opts.json) ctx.io.stdout(JSON.stringify({ file, scope, changed, removed: ours }, null, 2) + "\n");
  else ctx.io.stdout(ours.length ? `removed ${ours.length} teammem hook(s) from ${file}; other hooks and settings are untouched\n` : `no teammem hooks in ${file}; nothing changed\n`);
  return 0;
}
