/**
 * teammem's hooks in a Claude Code settings file: adding them (merged with what is there,
 * idempotent) and removing them (nothing else touched).
 *
 * Claude Code's hooks (https://code.claude.com/docs/en/hooks, "Configuration"): settings files
 * hold `hooks: { <Event>: [ { matcher?, hooks: [ { type: "command", command, timeout? } ] } ] }`;
 * `matcher` is a regular expression over tool names for PreToolUse/PostToolUse (`Write|Edit|MultiEdit`)
 * and over the start source for SessionStart (`startup|resume`); `timeout` is in seconds, after
 * which Claude Code cancels the command. Files: `~/.claude/settings.json` (user; under
 * `$CLAUDE_CONFIG_DIR` when set), `.claude/settings.json` (project, committed and shared),
 * `.claude/settings.local.json` (project, this user only).
 *
 * A hook is teammem's when its command ends with `sync|scan|push --hook claude-code` (how teammem
 * writes them, whatever runs teammem before that); only those are ever changed or removed.
 */
import { lstat, readFile, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { mkdir } from "node:fs/promises";
import { writeFileAtomic } from "../../state/atomic.js";
import { ClientError } from "../../errors.js";

/** The `--hook` value every teammem hook command carries (how they are recognised). */
export const HOOK_FLAG = "--hook claude-code";

export interface HookSpec {
  /** Claude Code's hook event. */
  readonly event: "SessionStart" | "PreToolUse" | "PostToolUse";
  readonly matcher: string;
  /** The teammem command line after the executable (`sync --hook claude-code`). */
  readonly args: string;
  /** Seconds after which Claude Code cancels the hook. */
  readonly timeoutSeconds: number;
  /** What the hook does, for the user. */
  readonly does: string;
}

/** The hooks `teammem hooks install --agent claude-code` adds. */
export const CLAUDE_HOOKS: readonly HookSpec[] = [
  {
    event: "SessionStart",
    matcher: "startup|resume",
    args: `sync ${HOOK_FLAG}`,
    timeoutSeconds: 30,
    does: "at session start, a quick teammem sync of the project's memory folder (pulls teammates' changes; tells the agent what changed)",
  },
  {
    event: "PreToolUse",
    matcher: "Write|Edit|MultiEdit",
    args: `scan ${HOOK_FLAG}`,
    timeoutSeconds: 10,
    does: "before the agent writes or edits a file in the team scope, refuses the write when it would put a credential there (file:line:rule)",
  },
  {
    event: "PostToolUse",
    matcher: "Write|Edit|MultiEdit",
    args: `push ${HOOK_FLAG}`,
    timeoutSeconds: 20,
    does: "after the agent wrote or edited a file in the team scope, teammem push of that file (queued when the server is unreachable)",
  },
];

interface CommandHook {
  type?: unknown;
  command?: unknown;
  [key: string]: unknown;
}
interface MatcherGroup {
  matcher?: unknown;
  hooks?: unknown;
  [key: string]: unknown;
}
export type Settings = Record<string, unknown>;

/** Whether a hook entry is one of teammem's: its command ends with one of {@link CLAUDE_HOOKS}' arguments. */
export function isTeammemHook(hook: unknown): boolean {
  const command = (hook as CommandHook | null)?.command;
  return typeof command === "string" && CLAUDE_HOOKS.some((spec) => command.trimEnd().endsWith(` ${spec.args}`));
}

/** Quotes `word` for sh when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** @throws ClientError when `settings.hooks` has a shape teammem will not edit (it could not merge safely). */
function hooksOf(settings: Settings, file: string): Record<string, unknown> {
  const hooks = settings["hooks"];
  if (hooks === undefined) return {};
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
    throw new ClientError(`${file}: "hooks" is not an object; fix it by hand, nothing was changed`);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) throw new ClientError(`${file}: hooks.${event} is not a list; fix it by hand, nothing was changed`);
  }
  return hooks as Record<string, unknown>;
}

/**
 * `settings` without teammem's hooks. A matcher group that only held teammem hooks goes, an event
 * left without groups goes, `hooks` left empty goes; everything else stays as it was, in order.
 */
export function withoutTeammemHooks(settings: Settings, file: string): Settings {
  const hooks = hooksOf(settings, file);
  const kept: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    const remaining = (groups as unknown[]).flatMap((group) => {
      const list = (group as MatcherGroup | null)?.hooks;
      if (!Array.isArray(list) || !list.some(isTeammemHook)) return [group];
      const others = list.filter((h) => !isTeammemHook(h));
      return others.length ? [{ ...(group as MatcherGroup), hooks: others }] : [];
    });
    if (remaining.length > 0 || (groups as unknown[]).length === 0) kept[event] = remaining;
  }
  const rest = { ...settings };
  if (Object.keys(kept).length > 0 || (settings["hooks"] !== undefined && Object.keys(hooks).length === 0)) rest["hooks"] = kept;
  else delete rest["hooks"];
  return rest;
}

/**
 * `settings` with teammem's hooks (run as `executable ...`), replacing any teammem hooks already
 * there, each in its own matcher group appended to its event.
 */
export function withTeammemHooks(settings: Settings, executable: string, file: string): Settings {
  const base = withoutTeammemHooks(settings, file);
  const hooks = { ...hooksOf(base, file) };
  for (const spec of CLAUDE_HOOKS) {
    const group = { matcher: spec.matcher, hooks: [{ type: "command", command: `${executable} ${spec.args}`, timeout: spec.timeoutSeconds }] };
    hooks[spec.event] = [...((hooks[spec.event] as unknown[] | undefined) ?? []), group];
  }
  return { ...base, hooks };
}

/** The teammem hook commands found in `settings` (for doctor and uninstall reports). */
export function teammemHookCommands(settings: Settings): string[] {
  const hooks = settings["hooks"];
  if (typeof hooks !== "object" || hooks === null) return [];
  return Object.values(hooks).flatMap((groups) =>
    Array.isArray(groups)
      ? groups.flatMap((g) => {
          const list = (g as MatcherGroup | null)?.hooks;
          return Array.isArray(list) ? list.filter(isTeammemHook).map((h) => String((h as CommandHook).command)) : [];
        })
      : [],
  );
}

/**
 * Reads a settings file: `{}` when it does not exist.
 * @throws ClientError when it is not a JSON object (nothing is changed then).
 */
export async function readSettings(file: string): Promise<Settings> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ClientError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ClientError(`${file} is not valid JSON (${(err as Error).message}); fix it by hand, nothing was changed`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ClientError(`${file} does not hold a JSON object; fix it by hand, nothing was changed`);
  return value as Settings;
}

/**
 * Writes a settings file atomically (2-space JSON, as Claude Code writes it), keeping its mode;
 * through a symlink (a dotfiles manager's), the file it points to is written.
 * @returns false when the content was already exactly that (nothing written).
 */
export async function writeSettings(file: string, settings: Settings): Promise<boolean> {
  const text = JSON.stringify(settings, null, 2) + "\n";
  let target = file;
  let mode = 0o644;
  try {
    if ((await lstat(file)).isSymbolicLink()) target = await realpath(file);
    mode = (await stat(target)).mode & 0o777;
    if ((await readFile(target, "utf8")) === text) return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    await mkdir(dirname(target), { recursive: true });
  }
  await writeFileAtomic(target, text, mode);
  return true;
}
