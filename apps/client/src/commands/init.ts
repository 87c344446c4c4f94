/**
 * `teammem init --server URL --namespace NS [--token T] [--dir D]`: sets up a memory folder: the
 * state folder `.teammem/` (config with a new client id; the token too when `--token` is given,
 * mode 0600) and `team/`. Creates the namespace on the server when a token is at hand and the
 * server answers; offline, the first sync creates it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { Command } from "commander";
import { NAMESPACE_PATTERN } from "@teammem/protocol";
import { NetworkError, UsageError } from "../errors.js";
import { createApi } from "../http/api.js";
import { fsyncDir } from "../state/atomic.js";
import { loadConfig, saveConfig, type Config } from "../state/config.js";
import { loadSyncState, saveSyncState } from "../state/sync-state.js";
import { checkToken, findToken, layoutFor, type CommandContext, type CommonOptions } from "./common.js";

export const name = "init";
export const summary = "set up a memory folder to sync its team/ scope with a server namespace";

export function configure(command: Command): void {
  command
    .requiredOption("--server <url>", "server base URL, e.g. http://127.0.0.1:8080")
    .requiredOption("--namespace <name>", "namespace (one per repository), e.g. acme-web");
}

/** Normalises `--server`: an http(s) URL without credentials, query or fragment; no trailing slash. */
export function parseServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--server must be an http(s) URL such as http://127.0.0.1:8080 (got "${raw}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--server must use http or https (got "${url.protocol}")`);
  if (url.username || url.password) throw new UsageError("--server must not contain a user name or password; use --token");
  if (url.search || url.hash) throw new UsageError("--server must not contain a query or fragment");
  return url.toString().replace(/\/+$/, "");
}

interface InitOptions extends CommonOptions {
  server: string;
  namespace: string;
}

export async function run(raw: Record<string, unknown>, ctx: CommandContext): Promise<number> {
  const options = raw as unknown as InitOptions;
  const layout = layoutFor(options, ctx);
  const server = parseServerUrl(options.server);
  if (!NAMESPACE_PATTERN.test(options.namespace))
    throw new UsageError(`--namespace must be 1-128 of A-Z a-z 0-9 . _ - starting with a letter or digit (got "${options.namespace}")`);
  const flagToken = options.token === undefined ? undefined : checkToken(options.token, "--token");

  const existing = await loadConfig(layout);
  if (existing && (existing.server !== server || existing.namespace !== options.namespace))
    throw new UsageError(
      `${layout.root} is already set up for namespace ${existing.namespace} at ${existing.server}; ` +
        `remove ${layout.state} to start over`,
    );
  await mkdir(layout.root, { recursive: true });
  await mkdir(layout.state, { recursive: true, mode: 0o700 });
  await mkdir(layout.team, { recursive: true });
  await fsyncDir(layout.root);
  const config: Config = existing ?? {
    version: 1,
    server,
    namespace: options.namespace,
    clientId: randomUUID(),
    fingerprintKey: randomBytes(32).toString("hex"),
  };
  if (flagToken) config.token = flagToken;
  await saveConfig(layout, config);
  await saveSyncState(layout, await loadSyncState(layout));

  const token = findToken(options, ctx, config);
  let remote = "namespace will be created on the first sync (no token yet)";
  if (token) {
    try {
      const ns = await createApi({ server, namespace: config.namespace, token }).ensureNamespace();
      remote = `namespace ${ns.name} ready on the server`;
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      ctx.io.stderr(`teammem: ${err.message}; the first sync will create the namespace\n`);
      remote = "server not reached";
    }
  }
  ctx.io.stdout(
    `${existing ? "updated" : "initialised"} ${layout.root}: namespace ${config.namespace} at ${server}; ` +
      `team scope ${layout.team}; ${remote}\n`,
  );
  return 0;
}
