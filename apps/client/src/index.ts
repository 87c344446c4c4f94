export { run } from "./program.js";
export type { Io, CommandContext } from "./commands/common.js";
export { collectStatus, type StatusReport } from "./commands/status.js";
export { syncFolder, type SyncFolderOptions } from "./sync/sync-folder.js";
export type { SyncSummary } from "./sync/sync.js";
export { createApi, type Api, type ApiOptions } from "./http/api.js";
export { layoutOf, type Layout } from "./state/layout.js";
export { ClientError, UsageError, NetworkError, ServerError, ProtocolError } from "./errors.js";
