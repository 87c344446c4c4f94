/**
 * `teammem push --hook claude-code` (Claude Code's PostToolUse hook on Write|Edit|MultiEdit):
 * after the agent wrote a file in the team scope of a memory folder set up for teammem, pushes
 * that file within a time budget. A file held back for a credential exits 2, so Claude Code shows
 * the agent where (file:line:rule, never the value) and it can remove it. Any other file, an
 * unreachable server (the change stays queued), no token: exit 0.
 */
import { memoryFolderOf, readHookInput, toolFilePath } from "../agents/claude-hooks/hook-input.js";
import type { CommandContext } from "../commands/common.js";
import { teamPathOf } from "../local/team-path.js";
import { loadConfig } from "../state/config.js";
import { recoverDamagedState } from "../state/recover.js";
import { layoutOf } from "../state/layout.js";
import { pushOutcome } from "../sync/push-outcome.js";
import { syncFolder } from "../sync/sync-folder.js";
import { EXIT_TELL_AGENT, hookApi, hookGuard, hookToken, withLockWait } from "./hook-run.js";

/** Network time budget of one push from a hook, in ms (Claude Code's own timeout for it is 20 s). */
const PUSH_BUDGET_MS = 6_000;

export function postWriteHook(ctx: CommandContext): Promise<number> {
  return hookGuard(ctx, async () => {
    const input = await readHookInput(ctx.io);
    const file = toolFilePath(input);
    const root = file && memoryFolderOf(file);
    if (!file || !root) return 0; // not a team file of a memory folder teammem syncs
    const layout = layoutOf(root);
    const where = teamPathOf(layout, file);
    if (where.scope !== "team" || where.entryPath === "") return 0;
    const config = await loadConfig(layout);
    if (!config) return 0;
    const found = hookToken(ctx, config, layout.root);
    if (!("token" in found)) {
      ctx.io.stderr(`teammem hook: ${found.problem}; the next sync sends the file\n`);
      return 0;
    }
    const { token } = found;
    const entry = where.entryPath;
    const warnings: string[] = [];
    await recoverDamagedState(layout, (l) => warnings.push(l));
    const summary = await withLockWait(() =>
      syncFolder(layout, {
        config,
        token,
        api: hookApi(config, token, PUSH_BUDGET_MS),
        warn: (l) => warnings.push(l),
        onlyUnder: [entry],
        pull: false,
      }),
    );
    const outcome = pushOutcome(summary, [entry]);
    if (outcome.heldBack.length) {
      const lines = outcome.heldBack.flatMap((h) => [
        ...(h.pathFindings ?? []).map((f) => `  ${h.path}: path holds ${f.ruleId} (${f.label})`),
        ...h.findings.map((f) => `  ${h.path}:${f.line}:${f.ruleId} (${f.label})`),
      ]);
      ctx.io.stderr(
        `teammem: ${outcome.heldBack[0]!.path} was not shared with the team: it holds a credential\n${lines.join("\n")}\n` +
          "Remove the value from the file (say where it is kept instead, e.g. the secret manager's entry name).\n",
      );
      return EXIT_TELL_AGENT;
    }
    for (const w of warnings) ctx.io.stderr(`teammem: ${w}\n`);
    if (summary.error) ctx.io.stderr(`teammem hook: ${summary.error.message}; the change stays queued for the next sync or push\n`);
    for (const p of [...outcome.applied, ...outcome.merged]) ctx.io.stdout(`teammem: pushed ${p}\n`);
    return 0;
  });
}
