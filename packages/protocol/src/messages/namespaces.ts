import { z } from "zod";
import { Cursor, NamespaceName } from "./common.js";
import { ServerRef } from "./server.js";

/** Path parameters of every /v1/namespaces/:namespace/... route. */
export const NamespaceParams = z.strictObject({ namespace: NamespaceName });
export type NamespaceParams = z.infer<typeof NamespaceParams>;

/**
 * PUT /v1/namespaces/:namespace → 201 (created) or 200 (already there). `cursor`: last change
 * cursor handed out in it. `created` (this request created it) and `entries` (live entries) are
 * absent from servers before they were added. 409 `namespace_name_conflict` when the team has a
 * namespace of the same fold key (`namespaceFoldKey`) under another spelling.
 */
export const NamespaceResponse = z.object({
  name: NamespaceName,
  cursor: Cursor,
  created: z.boolean().optional(),
  entries: z.number().int().nonnegative().optional(),
  server: ServerRef,
});
export type NamespaceResponse = z.infer<typeof NamespaceResponse>;

/** GET /v1/namespaces: the caller's team's namespaces; `entries` counts live (not deleted) entries. */
export const NamespaceListResponse = z.object({
  namespaces: z.array(z.object({ name: NamespaceName, cursor: Cursor, entries: z.number().int().nonnegative() })),
  server: ServerRef,
});
export type NamespaceListResponse = z.infer<typeof NamespaceListResponse>;
