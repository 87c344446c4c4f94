/** What the server says about itself (GET /v1/server), read once per sync run: its limits, and its identity and epoch. */
import type { ServerInfoResponse } from "@teammem/protocol";
import { NetworkError, ProtocolError, ServerError } from "../errors.js";
import type { SyncContext } from "./context.js";

/**
 * Reads the server's identity and limits: `ctx.limits` takes the limits, the API client's reply
 * bound follows the server's entry limit (`http/reply-cap.ts`), and the batch size stays within the
 * server's operations per batch and the entries one reply may carry. When the server cannot be asked (offline, an older
 * server) the limits stay unknown (batches then adapt to refusals) and null is returned; the
 * failure itself is reported by the pull that follows.
 */
export async function readServerInfo(ctx: SyncContext): Promise<ServerInfoResponse | null> {
  let info: ServerInfoResponse;
  try {
    info = await ctx.api.serverInfo();
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError || err instanceof ProtocolError) return null;
    throw err;
  }
  ctx.limits = info.limits;
  ctx.api.replies.useEntryLimit(info.limits.maxEntryBytes);
  ctx.batchSize = Math.max(1, Math.min(ctx.batchSize, info.limits.maxOperationsPerBatch, ctx.api.replies.entriesPerReply));
  return info;
}
