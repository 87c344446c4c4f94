/**
 * One sync of a set-up memory folder, as `teammem sync` runs it: takes the folder's lock, loads
 * its state and reports, runs {@link sync}, releases the lock. For callers that sync without the
 * command line (the CLI's `sync` command is one).
 */
import { createApi, type Api } from "../http/api.js";
import { mergePolicies } from "../merge/policy.js";
import { requireConfig, type Config } from "../state/config.js";
import type { Layout } from "../state/layout.js";
import { acquireLock } from "../state/lock.js";
import { loadReports } from "../state/reports.js";
import { loadScanPolicy, scanKeyOf } from "../state/scan-policy.js";
import { loadSyncState } from "../state/sync-state.js";
import type { AllowRequest } from "./bypasses.js";
import type { SyncContext } from "./context.js";
import { sync, type SyncSummary } from "./sync.js";
import { underEntry } from "../local/team-path.js";
import { probeCaseInsensitive } from "../local/path-case.js";

/** Operations per batch to start with; a server naming a smaller limit lowers it for the run. */
const DEFAULT_BATCH_SIZE = 100;
/** Changes per pull request (the protocol allows up to 1000). */
const DEFAULT_PULL_PAGE_SIZE = 500;

export interface SyncFolderOptions {
  /** Access token sent to the server. */
  readonly token: string;
  /** The folder's config; read from `.teammem/config.json` when absent. */
  readonly config?: Config;
  /** HTTP client to use instead of the one built from the config and `token` (e.g. one wrapping its calls). */
  readonly api?: Api;
  /** Diagnostics for the user, one line each (default: dropped). Never receives file content or secrets. */
  readonly warn?: SyncContext["warn"];
  /** Operations per batch to start with (default {@link DEFAULT_BATCH_SIZE}). */
  readonly batchSize?: number;
  /** Changes per pull request, 1-1000 (default {@link DEFAULT_PULL_PAGE_SIZE}). */
  readonly pullPageSize?: number;
  /** `--allow-mass-delete` (default false). */
  readonly allowMassDelete?: boolean;
  /** Queue and send only the entry paths this accepts; default: all. */
  readonly only?: (entryPath: string) => boolean;
  /**
   * Queue and send only the files at or under these entry paths ("" = all), reading just them
   * instead of all of `team/` (`teammem push PATH`, `teammem watch`); combined with `only` when both are given.
   */
  readonly onlyUnder?: readonly string[];
  /** Pull first (default true); `teammem push` sends without pulling. */
  readonly pull?: boolean;
  /** How long to wait while another command (e.g. a running `teammem watch`'s sync) holds the folder's lock, ms (default 0). */
  readonly lockWaitMs?: number;
  /** `--allow <fingerprint> --reason <why>`: a bypass request sent before the push. */
  readonly allow?: AllowRequest;
  /** Whether team/'s file system ignores letter case; default: probed (local/path-case.ts). */
  readonly caseInsensitive?: boolean;
  /** Test seam (see `SyncContext.beforeReplace`): runs right before a pulled file's replace re-checks it. */
  readonly beforeReplace?: (entryPath: string) => Promise<void>;
}

/** The `only` predicate (and the subtrees to walk) of `options`. */
function onlyOptions({ only, onlyUnder }: SyncFolderOptions): Pick<SyncContext, "only" | "onlyUnder"> {
  if (!onlyUnder) return only ? { only } : {};
  const under = (path: string) => onlyUnder.some((prefix) => underEntry(prefix, path));
  return { only: only ? (path) => under(path) && only(path) : under, onlyUnder };
}

/**
 * Syncs the memory folder of `layout` once (pull, then push; with `only` and `pull: false`, pushes
 * just those paths: `teammem push`).
 * @throws UsageError when the folder was never set up; ClientError when another command holds its
 *   lock; MassDeleteRefused as {@link sync} does. Network and server failures are not thrown: they
 *   end the run early and are in the summary's `error`.
 */
export async function syncFolder(layout: Layout, options: SyncFolderOptions): Promise<SyncSummary> {
  const config = options.config ?? (await requireConfig(layout));
  const release = await acquireLock(layout, { waitMs: options.lockWaitMs ?? 0, ...(options.warn && { warn: options.warn }) });
  try {
    return await sync({
      layout,
      config,
      api:
        options.api ??
        createApi({
          server: config.server,
          namespace: config.namespace,
          token: options.token,
          retry: { onWait: (ms, code) => options.warn?.(`the server answered ${code}: waiting ${Math.ceil(ms / 1000)} s as it asked, then sending again`) },
        }),
      state: await loadSyncState(layout),
      reports: await loadReports(layout),
      scanKey: scanKeyOf(config, await loadScanPolicy(layout)),
      warn: options.warn ?? (() => undefined),
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      limits: null,
      allowMassDelete: options.allowMassDelete === true,
      pullPageSize: options.pullPageSize ?? DEFAULT_PULL_PAGE_SIZE,
      ...onlyOptions(options),
      ...(options.pull === false ? { pull: false } : {}),
      ...(options.allow ? { allow: options.allow } : {}),
      mergePolicy: mergePolicies(config.merge),
      events: [],
      heldBackWarned: new Set(),
      caseInsensitive: options.caseInsensitive ?? (await probeCaseInsensitive(layout.team)),
      holdsLock: true,
      ...(options.beforeReplace ? { beforeReplace: options.beforeReplace } : {}),
    });
  } finally {
    await release();
  }
}
