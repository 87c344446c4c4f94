import type { Limits } from "../limits.js";
import type { ChangeNotifier } from "./change-notifier.js";
import type { NamespaceRow } from "./namespaces.js";

/** Who writes where, and under which limits; built by the route from `request.auth` and the app. */
export interface WriteContext {
  readonly namespace: Pick<NamespaceRow, "id" | "name" | "teamId">;
  readonly author: { readonly id: string; readonly name: string };
  /** The sending device's id, recorded in history and audit events. */
  readonly clientId: string | null;
  readonly limits: Limits;
  /** The team's current fingerprint key (HMAC) and its id, for the re-scan and its audit events. */
  readonly fingerprintKey: string;
  readonly fingerprintKeyId: number;
  /** Fingerprints of the team's approved bypasses: the re-scan lets them through. */
  readonly allowedFingerprints: readonly string[];
  /** Notifies the cursors this instance's writes commit (store/change-notifier.ts). */
  readonly notifier: ChangeNotifier;
}
