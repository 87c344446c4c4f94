import { z } from "zod";

/**
 * GET /v1/team/whoami (any role): who the bearer token speaks for, and which server answers. For
 * clients to check a setup (`teammem doctor`). `role` is the role the token acts with (the lower of
 * the token's and the member's); `expiresAt` is ISO 8601, null for a token that does not expire.
 */
export const WhoamiResponse = z.object({
  team: z.string(),
  user: z.string(),
  role: z.enum(["admin", "member", "reader"]),
  tokenId: z.uuid(),
  expiresAt: z.iso.datetime().nullable(),
  serverVersion: z.string(),
});
export type WhoamiResponse = z.infer<typeof WhoamiResponse>;
