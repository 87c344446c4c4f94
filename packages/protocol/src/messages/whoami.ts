import { z } from "zod";
import { Text } from "../well-formed.js";

/**
 * GET /v1/team/whoami (any role): who the bearer token speaks for, and which server answers. For
 * clients to check a setup (`teammem doctor`). `role` is the role the token acts with (the lower of
 * the token's and the member's); `expiresAt` is ISO 8601, null for a token that does not expire.
 */
export const WhoamiResponse = z.object({
  team: Text,
  user: Text,
  role: z.enum(["admin", "member", "reader"]),
  tokenId: z.uuid(),
  expiresAt: z.iso.datetime().nullable(),
  serverVersion: Text,
});
export type WhoamiResponse = z.infer<typeof WhoamiResponse>;
