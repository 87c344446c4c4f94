export { buildApp, type AppOptions } from "./app.js";
export { openDatabase, type Database, type DatabaseTarget, type Db } from "./db/database.js";
export { issueToken } from "./admin/tokens.js";
export { loadServerIdentity, rotateEpoch, startNewEpoch, type EpochChange, type ServerIdentity } from "./identity/server-identity.js";
export { exportBackup, type ExportOptions, type ExportSummary } from "./backup/export-backup.js";
export { importBackup, type ImportOptions, type ImportSummary } from "./backup/import-backup.js";
export { BackupError, BACKUP_FORMAT_VERSION, type BackupErrorCode } from "./backup/backup-format.js";
export { readLines, type Line } from "./backup/read-lines.js";
