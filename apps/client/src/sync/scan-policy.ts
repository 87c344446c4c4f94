/** Keeping the team's scan policy (fingerprint key, allowed fingerprints) current: fetched at the start of every sync. */
import { NetworkError, ServerError } from "../errors.js";
import { loadScanPolicy, saveScanPolicy, scanKeyOf } from "../state/scan-policy.js";
import type { SyncContext } from "./context.js";

/**
 * Fetches the team's scan policy, stores it when it changed and makes `ctx.scanKey` its key. When
 * the server cannot be asked (offline, refused, an older server) the stored policy stays in force;
 * the failure itself is reported by the pull that follows.
 */
export async function refreshScanPolicy(ctx: SyncContext): Promise<void> {
  let fetched;
  try {
    fetched = await ctx.api.scanPolicy();
  } catch (err) {
    if (err instanceof NetworkError || err instanceof ServerError) return;
    throw err;
  }
  const stored = await loadScanPolicy(ctx.layout);
  const same =
    stored &&
    stored.fingerprintKey.id === fetched.fingerprintKey.id &&
    stored.fingerprintKey.key === fetched.fingerprintKey.key &&
    stored.allowedFingerprints.join() === fetched.allowedFingerprints.join();
  if (stored && stored.fingerprintKey.id !== fetched.fingerprintKey.id) ctx.warn(`the team's fingerprint key was rotated (key ${fetched.fingerprintKey.id}); fingerprints shown from now on differ from earlier ones`);
  ctx.scanKey = scanKeyOf(ctx.config, same ? stored : await saveScanPolicy(ctx.layout, fetched));
}
