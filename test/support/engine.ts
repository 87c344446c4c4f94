/** The sync engine called directly (no CLI) on an initialised folder, for cases the CLI's defaults make slow or racy to reach. */
import { collectStatus, createApi, layoutOf, syncFolder, type Api, type SyncSummary } from "@teammem/client";

interface EngineSyncOptions {
  batchSize?: number;
  pullPageSize?: number;
  /** Wraps the HTTP client, e.g. to inject a failure or a teammate's write between two calls. */
  wrap?: (api: Api) => Api;
}

export async function engineSync(dir: string, token: string, options: EngineSyncOptions = {}): Promise<SyncSummary> {
  const { server, namespace } = await collectStatus({ dir }, { env: {}, io: { stdout: () => undefined, stderr: () => undefined }, cwd: dir });
  const api = createApi({ server, namespace, token });
  return syncFolder(layoutOf(dir), {
    token,
    api: options.wrap ? options.wrap(api) : api,
    batchSize: options.batchSize ?? 10,
    pullPageSize: options.pullPageSize ?? 100,
  });
}
