/**
 * An admin purged content from an entry's history (the change carries `purged`, see the protocol's
 * `PurgeNotice`): this folder drops every copy of that content it keeps under `.teammem/` — the
 * base copy (`bases/<sha256>`) and our side of a conflict (`conflicts/<id>/<path>`, the record
 * stays with `copy: null`). The working file is the pull's business: a purged head arrives as a
 * tombstone and is deleted like any delete (a file changed here is kept); an older version is
 * replaced by the head the change carries.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join, sep } from "node:path";
import { sha256Hex, type PurgeNotice } from "@teammem/protocol";
import { saveConflicts } from "../state/reports.js";
import type { SyncContext } from "./context.js";
import { removeConflictCopy } from "./settle-conflicts.js";

const SHA256 = /^[0-9a-f]{64}$/;

/** The sha256 of a conflict copy's content, or null when it cannot be read. */
async function copyHash(ctx: SyncContext, copy: string): Promise<string | null> {
  const file = join(ctx.layout.root, copy);
  if (!file.startsWith(ctx.layout.conflictCopies + sep)) return null;
  try {
    return sha256Hex(await readFile(file, "utf8"));
  } catch {
    return null;
  }
}

/**
 * Removes the local copies of the content `purged` names.
 * @returns how many copies were removed (base copies and conflict copies). Saves the conflicts list when it changed.
 */
export async function dropPurgedContent(ctx: SyncContext, purged: PurgeNotice): Promise<number> {
  const hashes = new Set(purged.sha256.filter((s) => SHA256.test(s)));
  if (hashes.size === 0) return 0;
  let dropped = 0;
  for (const sha of hashes) {
    const file = join(ctx.layout.baseContents, sha);
    if (!existsSync(file)) continue;
    await rm(file, { force: true });
    dropped++;
  }
  let changed = false;
  const conflicts = [];
  for (const c of ctx.reports.conflicts) {
    const hash = c.copy === null ? null : await copyHash(ctx, c.copy);
    if (hash !== null && hashes.has(hash)) {
      await removeConflictCopy(ctx.layout, c);
      conflicts.push({ ...c, copy: null });
      dropped++;
      changed = true;
    } else conflicts.push(c);
  }
  if (changed) {
    ctx.reports.conflicts = conflicts;
    await saveConflicts(ctx.layout, conflicts);
  }
  return dropped;
}
