/**
 * `.teammem/bypasses.json`: the bypass requests this folder sent (`teammem sync --allow`), with the
 * state last seen on the server, so `status` can show it without the network. Refreshed by every
 * sync while a request is pending or approved (an approval can be revoked). Metadata only:
 * fingerprint, rule, path, line, never the value.
 */
import { z } from "zod";
import { BypassReason, BypassStatus } from "@teammem/protocol";
import { readJson, writeJsonAtomic } from "./atomic.js";
import type { Layout } from "./layout.js";

export const StoredBypass = z.object({
  id: z.string(),
  /** Entry path (relative to `team/`) of the held-back file. */
  path: z.string(),
  line: z.number().int(),
  ruleId: z.string(),
  fingerprint: z.string(),
  reason: BypassReason,
  reasonText: z.string().nullable(),
  status: BypassStatus,
  requestedAt: z.string(),
  /** Who approved or denied (`policy`: the team's immediate policy). */
  decidedBy: z.string().nullable(),
  note: z.string().nullable(),
  /** The admin who revoked an approval, and their note; null until revoked (absent in files of older clients). */
  revokedBy: z.string().nullable().default(null),
  revokeNote: z.string().nullable().default(null),
  /** false once the team's fingerprint key was rotated: an approval no longer matches anything (absent in files of older clients: true). */
  currentKey: z.boolean().default(true),
});
export type StoredBypass = z.infer<typeof StoredBypass>;

/** The file's shape (also for the recovery of a damaged one, state/recover.ts). */
export const BypassesFile = z.object({ entries: z.array(StoredBypass) });

/**
 * The stored bypass requests, oldest first; [] when the file does not exist yet.
 * @throws StateError when `.teammem/bypasses.json` is not JSON or not of this shape.
 */
export async function loadBypasses(layout: Layout): Promise<StoredBypass[]> {
  return (await readJson(layout.bypasses, BypassesFile))?.entries ?? [];
}

/** Replaces the stored requests with `entries` (oldest first), keeping the newest 100; written atomically. */
export async function saveBypasses(layout: Layout, entries: StoredBypass[]): Promise<void> {
  await writeJsonAtomic(layout.bypasses, { entries: entries.slice(-100) });
}
