/**
 * `.teammem/scan-policy.json` (mode 0600): the team's scan policy as last fetched from the server
 * (`GET /v1/team/scan-policy`): the team's fingerprint key, so a secret's fingerprint here is the
 * one the server and every teammate compute, and the fingerprints the team's approved bypasses let
 * through. Until the server was reached once, the config's local
 * key stands in (its fingerprints match nothing elsewhere and block reports then carry none).
 */
import { chmod } from "node:fs/promises";
import { z } from "zod";
import { ScanPolicyResponse } from "@teammem/protocol";
import { readJson, writeJsonAtomic } from "./atomic.js";
import type { Config } from "./config.js";
import type { Layout } from "./layout.js";

export const StoredScanPolicy = ScanPolicyResponse.extend({ fetchedAt: z.string() });
export type StoredScanPolicy = z.infer<typeof StoredScanPolicy>;

/** What the scanner is run with here. `fingerprintKeyId` null: the local stand-in key. */
export interface ScanKey {
  readonly fingerprintKey: string;
  readonly fingerprintKeyId: number | null;
  /** Fingerprints the team's approved bypasses let through (none with the stand-in key). */
  readonly allowFingerprints: readonly string[];
}

export async function loadScanPolicy(layout: Layout): Promise<StoredScanPolicy | undefined> {
  return readJson(layout.scanPolicy, StoredScanPolicy);
}

export async function saveScanPolicy(layout: Layout, policy: ScanPolicyResponse): Promise<StoredScanPolicy> {
  const stored: StoredScanPolicy = { ...policy, fetchedAt: new Date().toISOString() };
  await writeJsonAtomic(layout.scanPolicy, stored, 0o600);
  await chmod(layout.scanPolicy, 0o600);
  return stored;
}

/** The team's key when known, else the config's local one. */
export function scanKeyOf(config: Config, policy: StoredScanPolicy | undefined): ScanKey {
  return policy
    ? { fingerprintKey: policy.fingerprintKey.key, fingerprintKeyId: policy.fingerprintKey.id, allowFingerprints: policy.allowedFingerprints }
    : { fingerprintKey: config.fingerprintKey, fingerprintKeyId: null, allowFingerprints: [] };
}
