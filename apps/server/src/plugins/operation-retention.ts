import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { pruneOperations } from "../store/operation-retention.js";
import { retentionJob } from "./retention-job.js";

export interface OperationRetentionOptions {
  /** Stored operation results older than this many days are deleted; 0 keeps them forever. */
  retentionDays: number;
  /** How often the job runs, in ms (the first run is when the app is ready). */
  intervalMs: number;
}

export const DEFAULT_OPERATION_RETENTION: OperationRetentionOptions = {
  retentionDays: 90,
  intervalMs: 60 * 60 * 1000,
};

/** What the plugin offers (for tests and operators). */
export interface OperationRetentionControl {
  /** Runs the job now (no-op when retention is off). @returns stored results deleted. */
  run(): Promise<number>;
}

/**
 * The idempotency table's retention job on this instance ({@link retentionJob}, like the audit
 * log's): when `retentionDays` > 0, on `onReady` and every `intervalMs`, stopped in `onClose`.
 * Decorates `app.operationRetention` ({@link OperationRetentionControl}).
 */
async function operationRetention(app: FastifyInstance, opts: OperationRetentionOptions): Promise<void> {
  const run = retentionJob(app, { ...opts, name: "operation retention", prune: (days) => pruneOperations(app.db, days) });
  app.decorate("operationRetention", { run } satisfies OperationRetentionControl);
}

declare module "fastify" {
  interface FastifyInstance {
    operationRetention: OperationRetentionControl;
  }
}

export default fp(operationRetention, { name: "teammem-operation-retention" });
