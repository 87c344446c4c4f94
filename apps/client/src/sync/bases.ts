/**
 * Bases with their content: moving a path's base keeps the content of the version it points at
 * (`state/base-store.ts`), so a later three-way merge or rename check has the base text at hand;
 * when the store does not have it (a state from an older client, a damaged cache), it is read
 * from the server's history.
 */
import { sha256Hex } from "@teammem/protocol";
import { NetworkError, ServerError } from "../errors.js";
import { readBaseContent, storeBaseContent } from "../state/base-store.js";
import type { Layout } from "../state/layout.js";
import { advanceBase, type Base, type SyncState } from "../state/sync-state.js";
import type { SyncContext } from "./context.js";

/**
 * Moves the base of `path` to `next` unless the stored base is newer (see `advanceBase`), keeping
 * `content` (null for a tombstone) in the base store. The caller saves the state.
 * @returns whether the base moved.
 */
export async function moveBase(ctx: { readonly layout: Layout; readonly state: SyncState }, path: string, next: Base, content: string | null): Promise<boolean> {
  if (content !== null) await storeBaseContent(ctx.layout, content);
  return advanceBase(ctx.state, path, next);
}

/**
 * The text of version `version` of `path` whose sha256 is `sha256` (null: a tombstone; undefined:
 * not known here): "" for version 0 or a tombstone (what the server merges from, too), else from
 * the base store or, failing that, the server.
 * @returns undefined when neither has it (server unreachable, version unknown there).
 */
export async function versionText(ctx: SyncContext, path: string, version: number, sha256: string | null | undefined): Promise<string | undefined> {
  if (version === 0 || sha256 === null) return "";
  const stored = sha256 === undefined ? undefined : await readBaseContent(ctx.layout, sha256);
  if (stored !== undefined) return stored;
  try {
    const fetched = await ctx.api.version(path, version);
    if (fetched.deleted) return "";
    if (fetched.content === null || (sha256 !== undefined && sha256Hex(fetched.content) !== sha256)) return undefined;
    await storeBaseContent(ctx.layout, fetched.content);
    return fetched.content;
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError) return undefined;
    throw err;
  }
}

/**
 * What a merge into `path` starts from: its base's text ("" when there is none or it is a
 * tombstone); `"purged"` when the base version's content was purged from the server's history (no
 * copy here either: nothing to start from, see `mergeWithoutBase`); undefined when unavailable now
 * (server unreachable, version unknown there).
 */
export async function mergeBaseOf(ctx: SyncContext, path: string): Promise<{ readonly text: string } | "purged" | undefined> {
  const base = ctx.state.bases[path];
  if (!base || base.version === 0 || base.sha256 === null) return { text: "" };
  const stored = await readBaseContent(ctx.layout, base.sha256);
  if (stored !== undefined) return { text: stored };
  try {
    const fetched = await ctx.api.version(path, base.version);
    if (fetched.purged) return "purged";
    if (fetched.deleted) return { text: "" };
    if (fetched.content === null || sha256Hex(fetched.content) !== base.sha256) return undefined;
    await storeBaseContent(ctx.layout, fetched.content);
    return { text: fetched.content };
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError) return undefined;
    throw err;
  }
}

/** The text of the base of `path` ("" when there is none or it is a tombstone); undefined when unavailable. */
export function baseText(ctx: SyncContext, path: string): Promise<string | undefined> {
  const base = ctx.state.bases[path];
  return base ? versionText(ctx, path, base.version, base.sha256) : Promise.resolve("");
}
