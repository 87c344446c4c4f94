/**
 * `teammem sync --hook claude-code` (Claude Code's SessionStart hook): a quick sync of the
 * project's memory folder within a time budget. What it prints on stdout Claude Code adds to the
 * session's context, so it says only what the agent should know: teammates' changes written,
 * files held back, conflicts. A folder not set up for teammem, no token, an unreachable server:
 * a note on stderr, exit 0 (changes stay queued for the next sync).
 */
import { readHookInput } from "../agents/claude-hooks/hook-input.js";
import { locateFolder } from "../agents/locate-folder.js";
import type { CommandContext } from "../commands/common.js";
import { loadConfig } from "../state/config.js";
import { recoverDamagedState } from "../state/recover.js";
import { displayPath, layoutOf } from "../state/layout.js";
import { syncFolder } from "../sync/sync-folder.js";
import { hookApi, hookGuard, hookToken, withLockWait } from "./hook-run.js";

/** Network time budget of the session-start sync, in ms (Claude Code's own timeout for it is 30 s). */
const SESSION_START_BUDGET_MS = 15_000;

export function sessionStartHook(ctx: CommandContext): Promise<number> {
  return hookGuard(ctx, async () => {
    const input = await readHookInput(ctx.io);
    // Claude Code names the project folder; the memory folder is keyed by its repository.
    const project = ctx.env["CLAUDE_PROJECT_DIR"] || input.cwd || ctx.cwd;
    const located = await locateFolder({ agent: "claude-code" }, ctx.env, project);
    const layout = layoutOf(located.root);
    const config = await loadConfig(layout);
    if (!config) return 0; // this project's memory is not synced with teammem
    const found = hookToken(ctx, config, layout.root);
    if (!("token" in found)) {
      ctx.io.stderr(`teammem hook: ${found.problem}; not synced\n`);
      return 0;
    }
    const { token } = found;
    const warnings: string[] = [];
    await recoverDamagedState(layout, (l) => warnings.push(l));
    const summary = await withLockWait(() =>
      syncFolder(layout, { config, token, api: hookApi(config, token, SESSION_START_BUDGET_MS), warn: (l) => warnings.push(l) }),
    );
    for (const w of warnings) ctx.io.stderr(`teammem: ${w}\n`);
    const context: string[] = [];
    const written = [...summary.pulled.written, ...summary.pulled.deleted];
    if (written.length)
      context.push(`teammem: team memory (namespace ${config.namespace}) has ${written.length} change(s) from teammates since the last session: ${written.join(", ")}.`);
    if (summary.heldBack.length)
      context.push(`teammem: not shared with the team (a credential is in them; remove it): ${summary.heldBack.map((h) => displayPath(h.path)).join(", ")}.`);
    if (summary.pushed.conflicts.length)
      context.push(`teammem: conflicting team memory edits kept the server's version: ${summary.pushed.conflicts.join(", ")} (see teammem status).`);
    if (context.length) ctx.io.stdout(context.join("\n") + "\n");
    if (summary.error) ctx.io.stderr(`teammem hook: ${summary.error.message}; ${summary.pending} change(s) stay queued for the next sync\n`);
    return 0;
  });
}
