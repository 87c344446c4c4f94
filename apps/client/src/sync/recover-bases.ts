/**
 * Bases of a folder whose sync state was lost (a damaged `state.json` moved aside and rebuilt,
 * `state/recover.ts`), found again so that nothing queued or edited since the last sync is taken
 * for a file created on both sides, or undone:
 *
 * - a queued operation names the version its edit started from: `baseVersion` of its path and,
 *   for a rename, `renameFromVersion` of the old path. Those become the paths' bases (their hashes
 *   read from the server's history), so the reconciliation neither writes a file back over a
 *   queued delete or rename nor merges a queued edit without its base; the operations stay queued
 *   and are sent as they are.
 * - a file edited and not queued yet: its base was the newest version of its history whose content
 *   is still in the base store (`.teammem/bases/`, which keeps the content of each version a base
 *   pointed at and survives the damage), found with GET history.
 *
 * What this cannot find (the store lost too, the history purged) stays without a base and is
 * reconciled by content as before.
 */
import { sha256Hex, type HeadInfo } from "@teammem/protocol";
import { ServerError } from "../errors.js";
import type { TeamScope } from "../scope.js";
import { storedBaseHashes } from "../state/base-store.js";
import type { QueuedOperation } from "../state/outbox.js";
import type { Base } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";
import { renameSource } from "./renames.js";

/**
 * @returns the bases found, by entry path.
 * @throws NetworkError/ServerError (other than a 404 for a version or path the server does not have) when the server cannot be read.
 */
export async function recoverLostBases(ctx: SyncContext, queued: readonly QueuedOperation[], heads: ReadonlyMap<string, HeadInfo>, scope: TeamScope): Promise<Record<string, Base>> {
  const bases: Record<string, Base> = {};
  for (const { entry } of queued) {
    const op = entry.operation;
    const from = renameSource(op);
    const starts: [string, number][] = [[op.path, op.baseVersion], ...(from === null || !("renameFromVersion" in op) ? [] : [[from, op.renameFromVersion] as [string, number]])];
    for (const [path, version] of starts) {
      if (version === 0 || bases[path]) continue;
      const found = await notFoundAsUndefined(ctx.api.version(path, version));
      if (found) bases[path] = { version, sha256: found.deleted || found.content === null ? null : sha256Hex(found.content) };
    }
  }
  const stored = await storedBaseHashes(ctx.layout);
  for (const [path, file] of scope.files) {
    const head = heads.get(path);
    if (bases[path] || !head || head.sha256 === file.sha256 || stored.size === 0) continue;
    const history = await notFoundAsUndefined(ctx.api.history(path));
    const last = history?.versions.find((v) => v.sha256 !== null && stored.has(v.sha256));
    if (last) bases[path] = { version: last.version, sha256: last.sha256 };
  }
  return bases;
}

/** `request`'s answer, or undefined when the server answers 404 `not_found`; any other failure is thrown. */
async function notFoundAsUndefined<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof ServerError && err.code === "not_found") return undefined;
    throw err;
  }
}
