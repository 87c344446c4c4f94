/** The sync engine called directly (no CLI) on an initialised folder, for cases the CLI's defaults make slow or racy to reach. */
import { createApi, type Api } from "../../src/http/api.js";
import { loadConfig } from "../../src/state/config.js";
import { layoutOf } from "../../src/state/layout.js";
import { loadReports } from "../../src/state/reports.js";
import { loadSyncState } from "../../src/state/sync-state.js";
import { sync, type SyncSummary } from "../../src/sync/sync.js";

export interface EngineSyncOptions {
  batchSize?: number;
  pullPageSize?: number;
  /** Wraps the HTTP client, e.g. to inject a failure or a teammate's write between two calls. */
  wrap?: (api: Api) => Api;
}

export async function engineSync(dir: string, token: string, options: EngineSyncOptions = {}): Promise<SyncSummary> {
  const layout = layoutOf(dir);
  const config = (await loadConfig(layout))!;
  const api = createApi({ server: config.server, namespace: config.namespace, token });
  return sync({
    layout,
    config,
    api: options.wrap ? options.wrap(api) : api,
    state: await loadSyncState(layout),
    reports: await loadReports(layout),
    warn: () => undefined,
    batchSize: options.batchSize ?? 10,
    pullPageSize: options.pullPageSize ?? 100,
  });
}
