/**
 * What the admin commands (`audit`, `token list|revoke`, `team list`, `member`, `bypass`, `purge`) act through: a
 * running server's admin API (`--server URL --token T`, or TEAMMEM_SERVER / TEAMMEM_ADMIN_TOKEN),
 * acting as the token's user on the token's team; or, without a server, the database itself
 * (DATABASE_URL or the embedded data folder), acting as `cli` on the team named by `--team`.
 * Both answer in the protocol's shapes, so a command prints the same either way.
 */
import {
  AuditEvent,
  AuditEventList,
  AuditSummary,
  Bypass,
  BypassList,
  describeNetworkError,
  ErrorBody,
  MemberList,
  MemberRoleChange,
  PurgeResponse,
  RevokeTokenResponse,
  TeamInfo,
  TokenList,
  type AuditFilter,
  type BypassListQuery,
  type PurgeRequest,
} from "@teammem/protocol";
import { z } from "zod";
import { listMembers, listTeams, setMemberRole, findTeam } from "../admin/teams.js";
import { listTokens, revokeAuditedToken } from "../admin/tokens.js";
import { CLI_ACTOR } from "../audit/events.js";
import { exportBatch, exportHead, type ExportFormat } from "../audit/export-format.js";
import { auditEventBatches, listAuditEvents, readAuditEvent, summarizeAuditEvents, type AuditScope } from "../audit/query.js";
import type { Role } from "../auth/auth-context.js";
import { bypassToWire, decideBypass, listBypasses, readBypass, type BypassAction } from "../bypasses/store.js";
import type { Db } from "../db/database.js";
import { Refusal } from "../errors/refusal.js";
import { DEFAULT_LIMITS } from "../limits.js";
import { currentFingerprintKey } from "../policy/fingerprint-keys.js";
import { findNamespace } from "../store/namespaces.js";
import { purgeVersion } from "../store/purge.js";
import { ChangeNotifier } from "../store/change-notifier.js";
import { pgPool } from "../store/namespace-transaction.js";
import { CliError, EXIT, withStore, type CliContext } from "./context.js";

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** One team's admin operations, as the admin API offers them. */
export interface AdminBackend {
  /** Teams: every team of the database, or the token's team through the API. */
  teams(): Promise<TeamInfo[]>;
  tokens(): Promise<TokenList>;
  members(): Promise<MemberList>;
  setRole(user: string, role: Role): Promise<MemberRoleChange>;
  auditList(filter: AuditFilter, page: { limit: number; before?: number | undefined }): Promise<AuditEventList>;
  auditShow(id: number): Promise<AuditEvent>;
  auditSummary(filter: AuditFilter): Promise<AuditSummary>;
  /** Streams the export to `write`, chunk by chunk (never the whole export in memory). */
  auditExport(filter: AuditFilter, format: ExportFormat, write: (chunk: string) => void): Promise<void>;
  bypasses(query: BypassListQuery): Promise<BypassList>;
  bypass(id: string): Promise<Bypass>;
  decide(id: string, action: BypassAction, note: string | undefined): Promise<Bypass>;
  purge(namespace: string, request: PurgeRequest): Promise<PurgeResponse>;
  /** Revokes token `tokenId` (of the team; on the database without `--team`: of any team); `user` when known. */
  revokeToken(tokenId: string): Promise<RevokeTokenResponse & { user?: string }>;
}

/** How an admin command was told to reach its data (options shared by every admin command). */
export interface BackendOptions {
  server?: string | undefined;
  token?: string | undefined;
  team?: string | undefined;
  dataDir?: string | undefined;
}

/**
 * Runs `fn` with the backend `o` (and the environment) names: the API when a server URL is given,
 * else the database. `needsTeam`: the database mode needs `--team` (audit commands do not: without
 * it they read every team's events, and those of no team).
 * @throws CliError exit 2 for a server without a token, `--team` naming no team (the existing ones
 *   are listed) or another team than the token's.
 */
export async function withBackend<T>(
  ctx: CliContext,
  o: BackendOptions,
  purpose: string,
  needsTeam: boolean,
  fn: (b: AdminBackend) => Promise<T>,
  apiExample?: string,
): Promise<T> {
  const server = o.server ?? ctx.env.TEAMMEM_SERVER;
  if (server) {
    const token = o.token ?? ctx.env.TEAMMEM_ADMIN_TOKEN;
    if (!token) throw new CliError(`${server}: give an admin token with --token or TEAMMEM_ADMIN_TOKEN`, EXIT.usage);
    const api = apiBackend(server, token);
    if (o.team !== undefined) {
      const [own] = await api.teams();
      if (own && own.name !== o.team) throw new CliError(`the token is of team "${own.name}", not "${o.team}"; the admin API acts on the token's team only`, EXIT.usage);
    }
    return fn(api);
  }
  if (o.token !== undefined) throw new CliError("--token goes with --server URL (or TEAMMEM_SERVER); without a server the command works on the database", EXIT.usage);
  return withStore(ctx, { dataDir: o.dataDir, purpose, ...(apiExample !== undefined ? { apiExample } : {}) }, async (store) => {
    const db = store.database.db;
    if (o.team === undefined) {
      if (needsTeam) throw new CliError(`--team <name> is required on the database (teams: ${await teamNames(db)})`, EXIT.usage);
      return fn(dbBackend(db, null));
    }
    const teamId = await findTeam(db, o.team);
    if (!teamId) throw new CliError(`team "${o.team}" does not exist; existing teams: ${await teamNames(db)}`, EXIT.usage);
    return fn(dbBackend(db, teamId));
  });
}

/** The database's team names, comma-separated (or "none"). */
export async function teamNames(db: Db): Promise<string> {
  const names = (await listTeams(db)).map((t) => t.name);
  return names.length ? names.join(", ") : "none (create one with team create)";
}

function dbBackend(db: Db, teamId: string | null): AdminBackend {
  const scope: AuditScope = teamId ? { teamId } : { all: true };
  const team = (): string => {
    if (!teamId) throw new CliError("--team <name> is required for this command on the database", EXIT.usage);
    return teamId;
  };
  const keyId = async () => (await currentFingerprintKey(db, team())).id;
  const orRefusal = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof Refusal) throw new CliError(`${e.message} (${e.code})`, e.code === "invalid_request" ? EXIT.usage : EXIT.failure);
      throw e;
    }
  };
  return {
    teams: async () => (await listTeams(db, teamId ?? undefined)).map((t) => ({ name: t.name, createdAt: t.createdAt.toISOString(), members: t.members })),
    tokens: async () => ({
      tokens: (await listTokens(db, team())).map((t) => ({ ...t, createdAt: t.createdAt.toISOString(), expiresAt: iso(t.expiresAt), revokedAt: iso(t.revokedAt) })),
    }),
    members: async () => ({ members: (await listMembers(db, team())).map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() })) }),
    setRole: async (user, role) => {
      const changed = await orRefusal(setMemberRole(db, team(), user, role, CLI_ACTOR)); // with its audit event
      if (!changed) throw new CliError(`${user} is not a member of this team`);
      return { user, ...changed };
    },
    auditList: (filter, page) => listAuditEvents(db, scope, filter, page),
    auditShow: async (id) => {
      const event = await readAuditEvent(db, scope, id);
      if (!event) throw new CliError(`no audit event ${id}${teamId ? " in this team" : ""}`);
      return event;
    },
    auditSummary: (filter) => summarizeAuditEvents(db, scope, filter),
    auditExport: async (filter, format, write) => {
      const head = exportHead(format);
      if (head) write(head);
      for await (const events of auditEventBatches(db, scope, filter, 1000)) write(exportBatch(format, events));
    },
    bypasses: async (query) => {
      const { rows, nextBefore } = await orRefusal(listBypasses(db, team(), query));
      const current = await keyId();
      return { bypasses: rows.map((r) => bypassToWire(r, current)), nextBefore };
    },
    bypass: async (id) => {
      const row = await readBypass(db, team(), id);
      if (!row) throw new CliError(`no bypass request ${id} in this team`);
      return bypassToWire(row, await keyId());
    },
    decide: async (id, action, note) => {
      const row = await orRefusal(decideBypass(db, team(), id, action, CLI_ACTOR, note ?? null));
      if (!row) throw new CliError(`no bypass request ${id} in this team`);
      return bypassToWire(row, await keyId());
    },
    revokeToken: async (tokenId) => {
      // Unguarded (the recovery path on the database), but with its audit event in its transaction.
      const revoked = await db.transaction((tx) => revokeAuditedToken(tx, tokenId, CLI_ACTOR, teamId ?? undefined));
      if (!revoked) throw new CliError(`no token with id ${tokenId}${teamId ? " in this team" : ""}`);
      return { tokenId, revokedAt: revoked.revokedAt.toISOString(), user: revoked.user };
    },
    purge: async (name, request) => {
      const ns = await findNamespace(db, team(), name);
      if (!ns) throw new CliError(`namespace ${name} not found in this team`);
      const key = await currentFingerprintKey(db, team());
      // The command line acts as `cli`: no principal, so no author id.
      // No server here: the purge's cursor is notified right after its commit, before the command returns.
      const notifier = new ChangeNotifier(pgPool(db), null);
      const ctx = {
        namespace: ns,
        author: { id: null as unknown as string, name: CLI_ACTOR.name },
        clientId: null,
        limits: DEFAULT_LIMITS,
        fingerprintKey: key.key,
        fingerprintKeyId: key.id,
        allowedFingerprints: [],
        notifier,
      };
      try {
        return await orRefusal(purgeVersion(db, ctx, request));
      } finally {
        await notifier.close();
      }
    },
  };
}

/** Query parameters of `filter` (and more), for a URL. */
function query(params: Record<string, string | number | string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

function apiBackend(server: string, token: string): AdminBackend {
  const base = server.replace(/\/+$/, "");
  const send = async (method: string, path: string, body?: unknown): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      const timedOut = e instanceof DOMException && e.name === "TimeoutError";
      throw new CliError(`could not reach ${base} (${timedOut ? "no answer within 30000 ms" : describeNetworkError(e, base)})`);
    }
    if (!res.ok) {
      const parsed = ErrorBody.safeParse(await res.json().catch(() => null));
      const code = parsed.success ? parsed.data.code : `http_${res.status}`;
      const message = parsed.success ? parsed.data.message : res.statusText;
      throw new CliError(`${base} refused: ${message} (${code})`, code === "invalid_request" ? EXIT.usage : EXIT.failure);
    }
    return res;
  };
  const call = async <S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown): Promise<z.infer<S>> => {
    const res = await send(method, path, body);
    const parsed = schema.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new CliError(`${base}${path}: not a teammem server's answer (is the URL right, and the server as new as this command?)`);
    return parsed.data;
  };
  return {
    teams: async () => [await call(TeamInfo, "GET", "/v1/admin/team")],
    tokens: () => call(TokenList, "GET", "/v1/admin/tokens"),
    members: () => call(MemberList, "GET", "/v1/admin/members"),
    setRole: (user, role) => call(MemberRoleChange, "PUT", `/v1/admin/members/${encodeURIComponent(user)}`, { role }),
    auditList: (filter, page) => call(AuditEventList, "GET", `/v1/admin/audit-events${query({ ...filter, limit: page.limit, before: page.before })}`),
    auditShow: (id) => call(AuditEvent, "GET", `/v1/admin/audit-events/${id}`),
    auditSummary: (filter) => call(AuditSummary, "GET", `/v1/admin/audit-events/summary${query({ ...filter })}`),
    auditExport: async (filter, format, write) => {
      const res = await send("GET", `/v1/admin/audit-events/export${query({ ...filter, format })}`);
      const decoder = new TextDecoder();
      for await (const chunk of res.body ?? []) write(decoder.decode(chunk as Uint8Array, { stream: true }));
      const rest = decoder.decode();
      if (rest) write(rest);
    },
    bypasses: (q) => call(BypassList, "GET", `/v1/admin/bypasses${query({ ...q })}`),
    bypass: async (id) => (await call(z.object({ bypass: Bypass }), "GET", `/v1/admin/bypasses/${encodeURIComponent(id)}`)).bypass,
    revokeToken: async (tokenId) => {
      const revoked = await call(RevokeTokenResponse, "DELETE", `/v1/admin/tokens/${encodeURIComponent(tokenId)}`);
      const user = (await call(TokenList, "GET", "/v1/admin/tokens")).tokens.find((t) => t.tokenId === tokenId)?.user;
      return { ...revoked, ...(user !== undefined ? { user } : {}) };
    },
    purge: (namespace, request) => call(PurgeResponse, "POST", `/v1/admin/namespaces/${encodeURIComponent(namespace)}/purge`, request),
    decide: async (id, action, note) =>
      (await call(z.object({ bypass: Bypass }), "POST", `/v1/admin/bypasses/${encodeURIComponent(id)}/${action}`, note !== undefined ? { note } : undefined)).bypass,
  };
}
