import { z } from "zod";

/** A role in a team: `reader` reads, `member` also writes, `admin` also manages tokens. */
export const RoleName = z.enum(["admin", "member", "reader"]);
/** A user name as shown in history and audit events. */
export const UserName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, "user: 1-64 of [A-Za-z0-9._@-], starting alphanumeric");

/** POST /v1/admin/tokens: issue a token for `user` (created if new) in the caller's team. */
export const IssueTokenRequest = z.strictObject({
  user: UserName,
  role: RoleName,
  /** Lifetime in whole days (1-3650); absent: the token does not expire. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type IssueTokenRequest = z.infer<typeof IssueTokenRequest>;

/** Answer to POST /v1/admin/tokens. `token` is shown once and never stored by the server. */
export const IssueTokenResponse = z.object({ token: z.string(), tokenId: z.uuid() });
export type IssueTokenResponse = z.infer<typeof IssueTokenResponse>;

/** One issued token, without its value. Times are ISO 8601. */
export const TokenInfo = z.object({
  tokenId: z.uuid(),
  user: z.string(),
  role: RoleName,
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;
/** GET /v1/admin/tokens: the team's tokens, newest first. */
export const TokenList = z.object({ tokens: z.array(TokenInfo) });
export type TokenList = z.infer<typeof TokenList>;

/** DELETE /v1/admin/tokens/:tokenId answer; revoking twice keeps the first time. */
export const RevokeTokenResponse = z.object({ tokenId: z.uuid(), revokedAt: z.string() });
export type RevokeTokenResponse = z.infer<typeof RevokeTokenResponse>;

/** GET /v1/admin/members: the team's members by name. */
export const MemberList = z.object({
  members: z.array(z.object({ user: z.string(), role: RoleName, joinedAt: z.string() })),
});
export type MemberList = z.infer<typeof MemberList>;

/** One audit event: metadata only, never content or secret values. */
export const AuditEvent = z.object({
  id: z.number().int(),
  kind: z.string(),
  namespace: z.string().nullable(),
  path: z.string().nullable(),
  code: z.string().nullable(),
  user: z.string().nullable(),
  clientId: z.string().nullable(),
  findings: z.unknown().nullable(),
  createdAt: z.string(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

/** GET /v1/admin/audit-events?limit&before: newest first; pass `nextBefore` as `before` for the next page. */
export const AuditEventQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().positive().optional(),
});
export const AuditEventList = z.object({ events: z.array(AuditEvent), nextBefore: z.number().int().nullable() });
export type AuditEventList = z.infer<typeof AuditEventList>;
