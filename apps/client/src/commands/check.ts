/**
 * `teammem check [--strict] [--json]`: memory-aware checks of the team scope (checks/memory-checks.ts):
 * the index's size and links, topic files it does not mention, frontmatter, relative dates. Prints
 * one `path:line: message [rule]` line per warning. Exit 0 (warnings never block anything), or 1
 * with `--strict` when there is a warning (for CI); 2 on usage errors (no `team/` folder to check).
 */
import { checkTeamMemory, formatWarning, type MemoryFormat } from "../checks/memory-checks.js";
import { UsageError } from "../errors.js";
import { walkTeamScope, type ReadTeamFile, type TeamScope } from "../scope.js";
import { loadConfig, type Config } from "../state/config.js";
import { layoutFor, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "check";
export const summary = "check team memory for agents: index size and links, unindexed topics, frontmatter, relative dates";

function define(command: CommonCommand) {
  return command.option("--strict", "exit 1 when there is any warning (for CI)").option("--json", "print the warnings as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (options) => exit(await run(options, ctx)));
}

/** Claude Code's format when the folder is Claude Code's (by its config, or `--agent claude-code`). */
export function memoryFormat(config: Config | undefined, agentOption: string | undefined): MemoryFormat {
  return config?.agent === "claude-code" || agentOption === "claude-code" ? "claude-code" : "plain";
}

/** The team files of a walked scope as entry path → content (what the checks read). */
export function contentsOf(scope: TeamScope<ReadTeamFile>): Map<string, string> {
  return new Map([...scope.files].map(([path, file]) => [path, file.content]));
}

async function run(options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const layout = await layoutFor(options, ctx);
  const config = await loadConfig(layout);
  const scope = await walkTeamScope(layout);
  if (scope.root !== "folder") throw new UsageError(`${layout.team} is ${scope.root === "missing" ? "missing" : `not a folder (${scope.root})`}: nothing to check`);
  const files = contentsOf(scope);
  const warnings = checkTeamMemory(files, memoryFormat(config, options.agent));
  const failed = options.strict === true && warnings.length > 0;
  if (options.json) ctx.io.stdout(JSON.stringify({ ok: !failed, files: files.size, warnings }, null, 2) + "\n");
  else {
    for (const w of warnings) ctx.io.stdout(formatWarning(w) + "\n");
    ctx.io.stderr(
      warnings.length === 0
        ? `teammem: ${files.size} team file(s) checked, no warnings\n`
        : `teammem: ${warnings.length} warning(s) in ${files.size} team file(s)` +
            (options.strict ? " (--strict: failing)\n" : "; warnings never block a sync (--strict makes them fail)\n"),
    );
  }
  return failed ? 1 : 0;
}
