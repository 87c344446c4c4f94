import { z } from "zod";
import { Text } from "../well-formed.js";

/** A role in a team: `reader` reads, `member` also writes, `admin` also manages tokens. */
export const RoleName = z.enum(["admin", "member", "reader"]);
/** A user name as shown in history and audit events. */
export const UserName = Text.regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, "user: 1-64 of [A-Za-z0-9._@-], starting alphanumeric");

/** POST /v1/admin/tokens: issue a token for `user` (created if new) in the caller's team. */
export const IssueTokenRequest = z.strictObject({
  user: UserName,
  role: RoleName,
  /** Lifetime in whole days (1-3650); absent: the token does not expire. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type IssueTokenRequest = z.infer<typeof IssueTokenRequest>;

/** Answer to POST /v1/admin/tokens. `token` is shown once and never stored by the server. */
export const IssueTokenResponse = z.object({ token: Text, tokenId: z.uuid() });
export type IssueTokenResponse = z.infer<typeof IssueTokenResponse>;

/** One issued token, without its value. Times are ISO 8601. */
export const TokenInfo = z.object({
  tokenId: z.uuid(),
  user: Text,
  role: RoleName,
  createdAt: Text,
  expiresAt: Text.nullable(),
  revokedAt: Text.nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;
/** GET /v1/admin/tokens: the team's tokens, newest first. */
export const TokenList = z.object({ tokens: z.array(TokenInfo) });
export type TokenList = z.infer<typeof TokenList>;

/** DELETE /v1/admin/tokens/:tokenId answer; revoking twice keeps the first time. */
export const RevokeTokenResponse = z.object({ tokenId: z.uuid(), revokedAt: Text });
export type RevokeTokenResponse = z.infer<typeof RevokeTokenResponse>;

/** GET /v1/admin/members: the team's members by name. */
export const MemberList = z.object({
  members: z.array(z.object({ user: Text, role: RoleName, joinedAt: Text })),
});
export type MemberList = z.infer<typeof MemberList>;

/** PUT /v1/admin/members/:user: set a member's role in the team. */
export const MemberParams = z.strictObject({ user: UserName });
export const SetMemberRoleRequest = z.strictObject({ role: RoleName });
export type SetMemberRoleRequest = z.infer<typeof SetMemberRoleRequest>;
/**
 * Answer of PUT /v1/admin/members/:user. A request acts with the lower of its token's role and the
 * member's current role: lowering a role takes effect on every token of the member (within 5 s on
 * other instances); raising it does not raise older tokens (issue a new one).
 */
export const MemberRoleChange = z.object({ user: Text, role: RoleName, previousRole: RoleName });
export type MemberRoleChange = z.infer<typeof MemberRoleChange>;

/** GET /v1/admin/team: the caller's team. */
export const TeamInfo = z.object({ name: Text, createdAt: Text, members: z.number().int().nonnegative() });
export type TeamInfo = z.infer<typeof TeamInfo>;
