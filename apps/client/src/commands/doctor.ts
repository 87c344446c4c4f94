/**
 * `teammem doctor [--json]`: checks a setup end to end and says what to fix: the memory folder and
 * its config, the agent folder (still the one the agent uses?), the token (present, expiry; then
 * team, user and role as the server sees it), the server (reachable, version), the namespace,
 * Claude Code hooks, queued or blocked local work, memory warnings. One line per check:
 * `ok|warn|FAIL|info  <check>  <detail>`, a `fix:` line under each problem. Exit 1 when a check
 * fails, else 0; 2 on usage errors. Never prints the token.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { claudeConfigDir, claudeMemoryDir, codexMemoryDir } from "../agents/agent-folders.js";
import { readSettings, teammemHookCommands } from "../agents/claude-hooks/settings.js";
import { checkTeamMemory } from "../checks/memory-checks.js";
import { ClientError, isTokenRefusalCode, NetworkError, ServerError } from "../errors.js";
import { createApi, type Api } from "../http/api.js";
import { walkTeamScope } from "../scope.js";
import { loadConfig, type Config } from "../state/config.js";
import type { Layout } from "../state/layout.js";
import { listOutbox } from "../state/outbox.js";
import { recoverDamagedState } from "../state/recover.js";
import { loadReports } from "../state/reports.js";
import { contentsOf, memoryFormat } from "./check.js";
import { findToken, layoutFor, redactingIo, type CommandContext, type CommonCommand, type CommonOptions, type OptionsOf } from "./common.js";

export const name = "doctor";
export const summary = "check the setup (folder, agent folder, token, server, namespace, hooks) and say what to fix";

type Status = "ok" | "warn" | "fail" | "info";
export interface DoctorCheck {
  check: string;
  status: Status;
  detail: string;
  fix?: string;
  /** The server's stable code when it refused the token (`token_revoked`...): doctor then prints one error line with it. */
  code?: string;
}

/** Days before expiry from which a token gets a warning. */
const EXPIRY_WARNING_DAYS = 7;
const DAY_MS = 86_400_000;

function define(command: CommonCommand) {
  return command.option("--json", "print the checks as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (options) => exit(await run(options, ctx)));
}

/** `exp` of a JWT read without verifying it (the server verifies); undefined when absent or unreadable. */
function tokenExpiry(token: string): Date | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: unknown };
    return typeof payload.exp === "number" ? new Date(payload.exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

function expiryText(expiresAt: Date | null | undefined): { text: string; status: Status } {
  if (!expiresAt) return { text: "does not expire", status: "ok" };
  const days = Math.floor((expiresAt.getTime() - Date.now()) / DAY_MS);
  if (expiresAt.getTime() <= Date.now()) return { text: `expired ${expiresAt.toISOString()}`, status: "fail" };
  return { text: `expires ${expiresAt.toISOString()} (in ${days} day(s))`, status: days < EXPIRY_WARNING_DAYS ? "warn" : "ok" };
}

/** Is the folder still the one its agent uses? */
async function agentCheck(config: Config, layout: Layout, ctx: CommandContext): Promise<DoctorCheck> {
  if (config.agent === "claude-code") {
    if (!config.projectRoot) return { check: "agent folder", status: "info", detail: "Claude Code's folder (the repository it belongs to was not recorded)" };
    const expected = await claudeMemoryDir(ctx.env, config.projectRoot);
    if (!existsSync(config.projectRoot))
      return { check: "agent folder", status: "warn", detail: `the repository ${config.projectRoot} this folder belongs to is gone`, fix: "run teammem init --agent claude-code in the repository's new place" };
    if (expected.dir !== layout.root)
      return {
        check: "agent folder",
        status: "warn",
        detail: `Claude Code now keeps ${config.projectRoot}'s memory in ${expected.dir} (${expected.source}), not in this folder`,
        fix: "run teammem init --agent claude-code in the repository (or move this folder there)",
      };
    return { check: "agent folder", status: "ok", detail: `Claude Code's memory folder of ${config.projectRoot}` };
  }
  if (config.agent === "codex") {
    const expected = codexMemoryDir(ctx.env);
    return expected === layout.root
      ? { check: "agent folder", status: "ok", detail: "Codex's memories folder" }
      : { check: "agent folder", status: "warn", detail: `Codex now keeps memories in ${expected}, not in this folder`, fix: "check CODEX_HOME, or run teammem init --agent codex again" };
  }
  return { check: "agent folder", status: "info", detail: "a plain folder (no agent recorded)" };
}

/** The token, and the server as it sees it. */
async function serverChecks(config: Config, token: string | undefined, ctx: CommandContext, source: string): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  if (!token) {
    checks.push({ check: "token", status: "fail", detail: "no token", fix: "pass --token, set TEAMMEM_TOKEN, or store one with teammem init --token T" });
    return checks;
  }
  const local = expiryText(tokenExpiry(token));
  const api: Api = createApi({ server: config.server, namespace: config.namespace, token, timeoutMs: 10_000, retry: { limit: 0 } });
  let who;
  try {
    who = await api.whoami();
  } catch (err) {
    if (err instanceof NetworkError) {
      checks.push({ check: "server", status: "fail", detail: `cannot reach ${config.server}: ${err.reason}`, fix: "check that the server runs and the URL (teammem init --server) is right" });
      checks.push({ check: "token", status: local.status === "ok" ? "info" : local.status, detail: `from ${source}; ${local.text} (not checked: server not reached)` });
      return checks;
    }
    if (!(err instanceof ServerError)) throw err;
    if (isTokenRefusalCode(err.code)) {
      checks.push({ check: "server", status: "ok", detail: `${config.server} answers` });
      checks.push({
        check: "token",
        status: "fail",
        detail: `from ${source}: refused by the server (${err.code}: ${err.serverMessage})`,
        fix:
          err.code === "token_not_yet_valid"
            ? "check the clocks of this server and the one that issued the token (NTP), or ask an admin for a new token"
            : "ask an admin for a new token, then teammem init --token T (or set TEAMMEM_TOKEN)",
        code: err.code,
      });
      return checks;
    }
    checks.push({ check: "server", status: "warn", detail: `${config.server} answered whoami with ${err.status} ${err.code} (a server older than this client?)` });
    return checks;
  }
  checks.push({ check: "server", status: "ok", detail: `${config.server} reachable: teammem server ${who.serverVersion}` });
  const expiry = expiryText(who.expiresAt === null ? null : new Date(who.expiresAt));
  checks.push({
    check: "token",
    status: expiry.status,
    detail: `from ${source}: team ${who.team}, user ${who.user}, role ${who.role}; ${expiry.text}`,
    ...(expiry.status !== "ok" ? { fix: "ask an admin for a new token before it expires, then teammem init --token T" } : {}),
  });
  try {
    await api.changes(0, 1);
    checks.push({ check: "namespace", status: "ok", detail: `${config.namespace} exists on the server` });
  } catch (err) {
    if (err instanceof ClientError && err.code === "secret_detected")
      // Refused here before sending (a credential in the namespace): this check fails, the others go on.
      checks.push({ check: "namespace", status: "fail", detail: err.message, fix: "set a namespace without a credential: teammem init --namespace NAME (or edit .teammem/config.json)" });
    else if (!(err instanceof ServerError || err instanceof NetworkError)) throw err;
    else if (err instanceof ServerError && err.code === "not_found")
      checks.push(
        who.role === "reader"
          ? { check: "namespace", status: "fail", detail: `${config.namespace} does not exist and a reader cannot create it`, fix: "ask a member to run teammem sync (or init) for it" }
          : { check: "namespace", status: "info", detail: `${config.namespace} does not exist yet: the first sync creates it` },
      );
    else checks.push({ check: "namespace", status: "warn", detail: `could not read ${config.namespace}: ${err.message}` });
  }
  return checks;
}

/** Where teammem's Claude Code hooks are installed (user, project, local settings). */
async function hooksCheck(config: Config, ctx: CommandContext): Promise<DoctorCheck | undefined> {
  if (config.agent !== "claude-code") return undefined;
  const files = [join(claudeConfigDir(ctx.env), "settings.json")];
  if (config.projectRoot) files.push(join(config.projectRoot, ".claude", "settings.json"), join(config.projectRoot, ".claude", "settings.local.json"));
  const found: string[] = [];
  for (const file of files) {
    const settings = await readSettings(file).catch(() => ({}));
    if (teammemHookCommands(settings).length > 0) found.push(file);
  }
  return found.length
    ? { check: "hooks", status: "ok", detail: `teammem's Claude Code hooks in ${found.join(", ")}` }
    : { check: "hooks", status: "info", detail: "no teammem hooks in Claude Code's settings (sync by hand)", fix: "teammem hooks install --agent claude-code" };
}

async function localChecks(config: Config, layout: Layout, options: CommonOptions): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const [scope, outbox, reports] = await Promise.all([walkTeamScope(layout), listOutbox(layout), loadReports(layout)]);
  if (scope.root !== "folder")
    checks.push({ check: "team folder", status: "fail", detail: `${layout.team} is ${scope.root}`, fix: "restore the team/ folder (teammem status says more)" });
  else checks.push({ check: "team folder", status: "ok", detail: `${layout.team}: ${scope.files.size} file(s)` });
  const blocked = reports.heldBack.length + reports.rejected.length;
  if (outbox.length || blocked)
    checks.push({
      check: "local work",
      status: "warn",
      detail: `${outbox.length} change(s) queued, ${reports.heldBack.length} held back, ${reports.rejected.length} rejected`,
      fix: "teammem sync sends what is queued; teammem status says what blocks the rest",
    });
  const warnings = checkTeamMemory(contentsOf(scope), memoryFormat(config, options.agent));
  if (warnings.length) checks.push({ check: "memory", status: "warn", detail: `${warnings.length} memory warning(s)`, fix: "teammem check lists them" });
  return checks;
}

async function run(options: OptionsOf<typeof define>, rawCtx: CommandContext): Promise<number> {
  // The config, the server's messages and the checks' details are printed redacted (a namespace holding a credential never shows it).
  const ctx: CommandContext = { ...rawCtx, io: redactingIo(rawCtx.io) };
  const layout = await layoutFor(options, ctx);
  const checks: DoctorCheck[] = [];
  let config: Config | undefined;
  try {
    config = await loadConfig(layout);
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    checks.push({
      check: "folder",
      status: "fail",
      detail: err.message,
      fix: "repair the file, or move it aside and run teammem init again; do not remove .teammem/ (it holds queued edits)",
    });
  }
  if (!config && checks.length === 0)
    checks.push({
      check: "folder",
      status: "fail",
      detail: `${layout.root} is not set up for teammem`,
      fix: options.agent ? `teammem init --agent ${options.agent} --server URL` : "teammem init --server URL (or --agent claude-code in the repository)",
    });
  if (config) {
    checks.push({ check: "folder", status: "ok", detail: `${layout.root}: namespace ${config.namespace} at ${config.server}` });
    try {
      await recoverDamagedState(layout, (line) => checks.push({ check: "state", status: "warn", detail: line }));
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      checks.push({ check: "state", status: "fail", detail: err.message });
    }
    checks.push(await agentCheck(config, layout, ctx));
    const source = options.token !== undefined ? "--token" : ctx.env["TEAMMEM_TOKEN"] ? "TEAMMEM_TOKEN" : "the stored token";
    let token: string | undefined;
    try {
      token = findToken(options, ctx, config);
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      checks.push({ check: "token", status: "fail", detail: err.message });
    }
    if (!checks.some((c) => c.check === "token")) checks.push(...(await serverChecks(config, token, ctx, source)));
    const hooks = await hooksCheck(config, ctx);
    if (hooks) checks.push(hooks);
    try {
      checks.push(...(await localChecks(config, layout, options)));
    } catch (err) {
      // A queued operation or conflicts.json damaged (never moved by teammem): the message says what to do.
      if (!(err instanceof ClientError)) throw err;
      checks.push({ check: "local work", status: "fail", detail: err.message });
    }
  }
  const failed = checks.some((c) => c.status === "fail");
  const refused = checks.find((c) => c.code !== undefined);
  const error = refused ? { code: refused.code, message: `the token ${refused.detail}` } : undefined;
  if (options.json) ctx.io.stdout(JSON.stringify({ ok: !failed, ...(error ? { error } : {}), checks }, null, 2) + "\n");
  else {
    const label: Record<Status, string> = { ok: "ok  ", warn: "warn", fail: "FAIL", info: "info" };
    const width = Math.max(...checks.map((c) => c.check.length));
    for (const c of checks) {
      ctx.io.stdout(`${label[c.status]}  ${c.check.padEnd(width)}  ${c.detail}\n`);
      if (c.fix && c.status !== "ok") ctx.io.stdout(`      ${"".padEnd(width)}  fix: ${c.fix}\n`);
    }
  }
  // Like every command the server refuses: one error line with the stable code (the checks above still hold).
  if (error) ctx.io.stderr(`teammem: ${error.message} [${error.code}]\n`);
  return failed ? 1 : 0;
}
