/**
 * `teammem scan --hook claude-code` (Claude Code's PreToolUse hook on Write|Edit|MultiEdit): before
 * the agent writes a file in the team scope of a memory folder set up for teammem, scans the
 * content the file would have afterwards, as a sync would. A credential the write would add exits
 * 2: Claude Code refuses the tool call and shows the agent `file:line:rule` (never the value), so
 * the credential never reaches disk. Credentials already in the file do not block an edit (one
 * that removes them must go through). Anything else: exit 0.
 */
import { readFile } from "node:fs/promises";
import { contentAfter, memoryFolderOf, readHookInput, toolFilePath } from "../agents/claude-hooks/hook-input.js";
import type { CommandContext } from "../commands/common.js";
import { MAX_LOCAL_FILE_BYTES as MAX_SCAN_BYTES } from "../local/team-files.js";
import { teamPathOf } from "../local/team-path.js";
import { loadConfig } from "../state/config.js";
import { displayPath, layoutOf } from "../state/layout.js";
import { loadScanPolicy, scanKeyOf } from "../state/scan-policy.js";
import { scanTeamFile, type ContentFinding } from "../sync/scan-team-file.js";
import { EXIT_TELL_AGENT, hookGuard } from "./hook-run.js";

/** The file's text now; "" when absent, not UTF-8 or too large (then everything after the write counts as new). */
async function currentText(file: string): Promise<{ text: string; exists: boolean }> {
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_SCAN_BYTES) return { text: "", exists: true };
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), exists: true };
  } catch (err) {
    return { text: "", exists: (err as NodeJS.ErrnoException).code !== "ENOENT" };
  }
}

/** Findings of `after` beyond those `before` already holds (same rule and fingerprint, counted). */
function added(after: readonly ContentFinding[], before: readonly ContentFinding[]): ContentFinding[] {
  const held = new Map<string, number>();
  for (const f of before) held.set(`${f.ruleId}:${f.fingerprint}`, (held.get(`${f.ruleId}:${f.fingerprint}`) ?? 0) + 1);
  return after.filter((f) => {
    const key = `${f.ruleId}:${f.fingerprint}`;
    const left = held.get(key) ?? 0;
    if (left > 0) held.set(key, left - 1);
    return left === 0;
  });
}

export function preWriteHook(ctx: CommandContext): Promise<number> {
  return hookGuard(ctx, async () => {
    const input = await readHookInput(ctx.io);
    const file = toolFilePath(input);
    const root = file && memoryFolderOf(file);
    if (!file || !root) return 0;
    const layout = layoutOf(root);
    const where = teamPathOf(layout, file);
    if (where.scope !== "team" || where.entryPath === "") return 0;
    const config = await loadConfig(layout);
    if (!config) return 0;
    const { fingerprintKey: key, allowFingerprints } = scanKeyOf(config, await loadScanPolicy(layout).catch(() => undefined));
    const now = await currentText(file);
    const after = contentAfter(input, now.text);
    if (after === undefined || Buffer.byteLength(after, "utf8") > MAX_SCAN_BYTES) return 0;
    const before = scanTeamFile(where.entryPath, now.text, key, allowFingerprints);
    const next = scanTeamFile(where.entryPath, after, key, allowFingerprints);
    const newFindings = added(next.findings, before.findings);
    const newPath = now.exists ? [] : next.pathFindings;
    if (newFindings.length === 0 && newPath.length === 0) return 0;
    const shown = displayPath(where.entryPath);
    const lines = [
      ...newPath.map((f) => `  ${shown}: path holds ${f.ruleId} (${f.label})`),
      ...newFindings.map((f) => `  ${shown}:${f.line}:${f.ruleId} (${f.label})`),
    ];
    ctx.io.stderr(
      `teammem: refused: this write would put a credential into team memory, which syncs to the whole team\n${lines.join("\n")}\n` +
        "Write it without the value (say where the secret is kept, e.g. the secret manager's entry name), or keep it in a private memory file outside team/.\n",
    );
    return EXIT_TELL_AGENT;
  });
}
