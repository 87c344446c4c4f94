export { buildApp, type AppOptions } from "./app.js";
export { openDatabase, type Database, type DatabaseTarget, type Db } from "./db/database.js";
export { issueToken } from "./admin/tokens.js";
export { loadServerIdentity, startNewEpoch, type ServerIdentity } from "./identity/server-identity.js";
