import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ANONYMOUS_ACTOR, type Actor } from "../audit/events.js";
import { AuthDenialLog } from "../audit/auth-denials.js";
import { purgeAuditEvents } from "../audit/retention.js";
import { Refusal } from "../errors/refusal.js";
import { retentionJob } from "./retention-job.js";

export interface AuditOptions {
  /** Events older than this many days are deleted by the retention job; 0 keeps them forever. */
  retentionDays: number;
  /** How often the retention job runs, in ms (the first run is when the app is ready). */
  retentionIntervalMs: number;
  /** Length of one `auth_denied` counting window, in ms. */
  authDenialWindowMs: number;
}

export const DEFAULT_AUDIT_OPTIONS: AuditOptions = {
  retentionDays: 365,
  retentionIntervalMs: 60 * 60 * 1000,
  authDenialWindowMs: 60 * 1000,
};

/** What the app's audit plugin offers besides recording (for tests and operators). */
export interface AuditControl {
  /** Writes the counted `auth_denied` events now. */
  flushAuthDenials(): Promise<void>;
  /** Runs the retention job now (no-op when retention is off). @returns events deleted. */
  runRetention(): Promise<number>;
}

const AUTH_CODES = new Set(["unauthorized", "token_expired", "token_revoked", "token_not_yet_valid", "forbidden"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The audit log's jobs on this instance, owned by the app and stopped in `onClose`:
 * - every refused request (401 with an auth code, 403 forbidden) is counted into `auth_denied`
 *   events, one per window, team, code, address and token;
 * - the retention job ({@link retentionJob}), when `retentionDays` > 0, on `onReady` and every
 *   `retentionIntervalMs`.
 * Decorates `app.audit` ({@link AuditControl}).
 */
async function audit(app: FastifyInstance, opts: AuditOptions): Promise<void> {
  const denials = new AuthDenialLog(app.db, {
    windowMs: opts.authDenialWindowMs,
    maxKeys: 1000,
    onError: (err) => app.log.error({ err: { message: (err as Error).message } }, "could not record auth_denied events"),
  });

  app.addHook("onError", async (request, _reply, error) => {
    if (!(error instanceof Refusal) || !AUTH_CODES.has(error.code)) return;
    let teamId: string | null = null;
    let tokenId: string | null = null;
    let actor: Actor = ANONYMOUS_ACTOR;
    if (request.auth) {
      ({ teamId, tokenId } = request.auth);
      actor = { id: request.auth.principalId, name: request.auth.principalName };
    } else {
      // Only a token signed with the server's key names anyone; its claims are then ours.
      const claims = await app.verifyBearer(request).catch(() => null);
      if (claims && UUID.test(String(claims.team)) && UUID.test(String(claims.jti)) && UUID.test(String(claims.sub))) {
        teamId = claims.team;
        tokenId = claims.jti;
        actor = { id: claims.sub, name: String(claims.name).slice(0, 64) };
      }
    }
    denials.note({ teamId, code: error.code, remoteAddress: request.ip, tokenId, actor });
  });

  const runRetention = retentionJob(app, {
    retentionDays: opts.retentionDays,
    intervalMs: opts.retentionIntervalMs,
    name: "audit retention",
    prune: async (days) => (await purgeAuditEvents(app.db, days)).reduce((n, p) => n + p.purged, 0),
  });
  app.addHook("onReady", async () => {
    denials.start();
  });
  app.addHook("onClose", async () => {
    await denials.close();
  });

  app.decorate("audit", { flushAuthDenials: () => denials.flush(), runRetention } satisfies AuditControl);
}

declare module "fastify" {
  interface FastifyInstance {
    audit: AuditControl;
  }
}

export default fp(audit, { name: "teammem-audit", dependencies: ["teammem-auth"] });
