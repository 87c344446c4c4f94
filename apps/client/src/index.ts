export { run, processIo } from "./program.js";
export type { Io, CommandContext } from "./commands/common.js";
export { collectStatus, type StatusReport } from "./commands/status.js";
export { layoutOf, type Layout } from "./state/layout.js";
export { walkTeamScope, type TeamScope, type TeamFile, type SkippedPath } from "./scope.js";
export { ClientError, UsageError, NetworkError, ServerError, ProtocolError } from "./errors.js";
