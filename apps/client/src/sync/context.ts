import type { MergePolicy, ServerLimits } from "@teammem/protocol";
import type { Api } from "../http/api.js";
import type { ReplaceGuard } from "../local/team-files.js";
import type { Config } from "../state/config.js";
import type { Layout } from "../state/layout.js";
import type { Reports } from "../state/reports.js";
import type { ScanKey } from "../state/scan-policy.js";
import type { SyncState } from "../state/sync-state.js";
import type { AllowRequest } from "./bypasses.js";
import type { SyncEvent } from "./events.js";

/**
 * Everything one sync run works on. `state` and `reports` are in-memory copies that the steps
 * change and save; nothing here outlives the run.
 */
export interface SyncContext {
  readonly layout: Layout;
  readonly config: Config;
  readonly api: Api;
  readonly state: SyncState;
  readonly reports: Reports;
  /**
   * Diagnostics for the user (stderr). Never receives file content or secret values. `path`: the
   * entry path the line is about, when it is about one file (`push PATH` shows only the named ones).
   */
  readonly warn: (line: string, path?: string) => void;
  /** The fingerprint key files are scanned with: the team's (refreshed at the start of the run) or the local stand-in. */
  scanKey: ScanKey;
  /** Operations per batch; lowered when the server names a smaller limit. */
  batchSize: number;
  /** The server's limits, read once per run (GET /v1/server); null when it could not be asked (batches then adapt to refusals). */
  limits: ServerLimits | null;
  /** `--allow-mass-delete`: lets a sync delete everything (missing `team/`) or more than the mass-delete thresholds. */
  readonly allowMassDelete?: boolean;
  /** Changes asked for per pull request (1-1000). */
  readonly pullPageSize: number;
  /** Queue only the entry paths this accepts (`teammem push PATH`); default: every path. */
  readonly only?: (entryPath: string) => boolean;
  /**
   * With `only`: entry paths (files or folders) that hold every path `only` accepts, so the push
   * reads just them instead of all of `team/` (`push PATH`, `watch`); default: all of `team/`.
   */
  readonly onlyUnder?: readonly string[];
  /** Pull the server's changes first (default true; `push` does not). */
  readonly pull?: boolean;
  /** `--allow <fingerprint> --reason <why>`: ask the team to let a held-back secret through before pushing. */
  readonly allow?: AllowRequest;
  /** The merge policy of an entry path (config rules, then the defaults). */
  readonly mergePolicy: (entryPath: string) => MergePolicy;
  /** What this run did to files that changes what the user last saw; printed by the summary. */
  readonly events: SyncEvent[];
  /** Held-back files (path and content hash) this run already warned about: one warning per file per run. */
  readonly heldBackWarned: Set<string>;
  /**
   * Whether `team/`'s file system ignores letter case (local/path-case.ts probes it): a pulled
   * change is then not written or deleted through a file whose name differs only by case.
   */
  readonly caseInsensitive?: boolean;
  /** This run holds the folder's command lock (`syncFolder`): its walk removes the client's own leftover temporary files in `team/` (try22 T3). */
  readonly holdsLock?: boolean;
  /**
   * Test seam: runs right before a pull re-checks a team file it is about to replace with pulled
   * content (`ReplaceGuard.beforeCheck`), so a test can write the file there to order the race.
   */
  readonly beforeReplace?: (entryPath: string) => Promise<void>;
}

/**
 * The guard of a replace of a team file decided on content `expectSha256` (null: absent): the
 * file is replaced only if it still holds that right before the rename (`local/team-files.ts`).
 */
export function replaceGuard(ctx: Pick<SyncContext, "beforeReplace">, expectSha256: string | null): ReplaceGuard {
  return { expectSha256, ...(ctx.beforeReplace ? { beforeCheck: ctx.beforeReplace } : {}) };
}
