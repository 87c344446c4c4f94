import type { FastifyInstance } from "fastify";

export interface RetentionJobOptions {
  /** Rows older than this many days are deleted; 0 turns the job off. */
  retentionDays: number;
  /** How often the job runs, in ms (the first run is when the app is ready). */
  intervalMs: number;
  /** What the job deletes, for the log line when a run fails ("audit retention"). */
  name: string;
  /**
   * Deletes what is older than `retentionDays` days by the DATABASE's clock (`now()`, the clock of
   * every row's `created_at`), never this process's: a server whose clock runs ahead must not
   * delete what is not yet due (try15 F8). @returns how many rows went.
   */
  prune(retentionDays: number): Promise<number>;
}

/**
 * A retention job on this instance, owned by `app`: when `retentionDays` > 0 it runs on `onReady`
 * and every `intervalMs`, one run at a time; `onClose` stops the timer and waits for the run in
 * progress. A failed run is logged and counts 0; the next one tries again.
 * @returns run(): runs the job now (resolves to 0 at once when it is off), after any run in progress.
 */
export function retentionJob(app: FastifyInstance, opts: RetentionJobOptions): () => Promise<number> {
  let running: Promise<number> = Promise.resolve(0);
  const run = (): Promise<number> => {
    if (opts.retentionDays <= 0) return Promise.resolve(0);
    running = running.then(async () => {
      try {
        return await opts.prune(opts.retentionDays);
      } catch (err) {
        app.log.error({ err: { message: (err as Error).message } }, `${opts.name} failed`);
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
  return run;
}
