/** `.teammem/config.json`: which server and namespace a memory folder syncs with. */
import { chmod } from "node:fs/promises";
import { z } from "zod";
import { NamespaceName } from "@teammem/protocol";
import { AGENTS } from "../agents/agent-folders.js";
import { UsageError } from "../errors.js";
import { MergeRule } from "../merge/policy.js";
import { readJson, writeJsonAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

export const Config = z.object({
  version: z.literal(1),
  /** Base URL of the server, e.g. `http://127.0.0.1:8080` (no trailing slash). */
  server: z.string().url(),
  namespace: NamespaceName,
  /** Random id of this installation, sent with every batch and recorded in history. */
  clientId: z.string().min(1).max(128),
  /** Stand-in fingerprint key (hex) until the team's key is fetched (state/scan-policy.ts); local, so its fingerprints reveal nothing elsewhere. */
  fingerprintKey: z.string().min(16),
  /** Stored token (only when `init --token` was given); `--token` and TEAMMEM_TOKEN take precedence. */
  token: z.string().min(1).optional(),
  /** Whose memory folder this is (`init --agent`); absent for folders set up before agents were known. */
  agent: z.enum(AGENTS).optional(),
  /** For `claude-code`: the folder Claude Code keys this memory folder by (the repository's main worktree). */
  projectRoot: z.string().min(1).optional(),
  /** Merge policy rules, first match wins, checked before the default (`*.md` → union); see merge/policy.ts. */
  merge: z.array(MergeRule).max(1000).optional(),
});
export type Config = z.infer<typeof Config>;

/** @returns the config, or `undefined` when the folder was never initialised. */
export async function loadConfig(layout: Layout): Promise<Config | undefined> {
  return readJson(layout.config, Config, CONFIG_HINT);
}

/** What to do about a damaged config: it cannot be rebuilt (the client id, the token), so it is never moved or deleted. */
const CONFIG_HINT =
  "it holds the server, namespace, client id and stored token, which teammem cannot rebuild, so it was left as it is: " +
  "repair the JSON, or move it aside and run teammem init again (--server, --namespace, --token); the rest of .teammem/ (queued edits) stays";

/** @throws UsageError when the folder was never set up with `teammem init`. */
export async function requireConfig(layout: Layout): Promise<Config> {
  const config = await loadConfig(layout);
  if (!config)
    throw new UsageError(`${layout.root} is not set up for teammem: run \`teammem init --dir ${layout.root} --server URL --namespace NS\` first`);
  return config;
}

/** Writes the config atomically with mode 0600 (it may hold a token). */
export async function saveConfig(layout: Layout, config: Config): Promise<void> {
  await writeJsonAtomic(layout.config, config, 0o600);
  await chmod(layout.config, 0o600);
}
