import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { pruneOperations } from "../store/operation-retention.js";

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

const DAY_MS = 86_400_000;

/**
 * The idempotency table's retention job on this instance, like the audit retention job
 * (plugins/audit.ts): when `retentionDays` > 0, on `onReady` and every `intervalMs`, stopped in
 * `onClose`. Decorates `app.operationRetention` ({@link OperationRetentionControl}).
 */
async function operationRetention(app: FastifyInstance, opts: OperationRetentionOptions): Promise<void> {
  let running: Promise<number> = Promise.resolve(0);
  const run = (): Promise<number> => {
    if (opts.retentionDays <= 0) return Promise.resolve(0);
    running = running.then(async () => {
      try {
        return await pruneOperations(app.db, new Date(Date.now() - opts.retentionDays * DAY_MS));
      } catch (err) {
        app.log.error({ err: { message: (err as Error).message } }, "operation retention failed");
        return 0;
      }
    });
    return running;
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook("onReady", async () => {
    if (opts.retentionDays > 0) {
      void run();
      timer = setInterval(() => void run(), opts.intervalMs);
      timer.unref();
    }
  });
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await running;
  });
  app.decorate("operationRetention", { run } satisfies OperationRetentionControl);
}

declare module "fastify" {
  interface FastifyInstance {
    operationRetention: OperationRetentionControl;
  }
}

export default fp(operationRetention, { name: "teammem-operation-retention" });
