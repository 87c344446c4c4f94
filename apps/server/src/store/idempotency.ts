/**
 * The `operations` table: the stored result of every operation id of a namespace, so a replayed
 * operation (e.g. after a lost response) gets the original result and is never applied twice.
 */
import { sha256Hex, type OperationResult } from "@teammem/protocol";
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../db/database.js";
import { operations } from "../db/schema.js";

export interface StoredOperation {
  requestSha256: string;
  result: OperationResult;
}

/**
 * Hash of what an operation asks for (everything but its id), to detect an id reused for a
 * different operation. `parts` must be JSON-serialisable and in a fixed order.
 */
export function requestHash(kind: string, parts: readonly unknown[]): string {
  return sha256Hex(JSON.stringify([kind, ...parts]));
}

export async function readStoredOperation(db: Db | Tx, namespaceId: string, opId: string): Promise<StoredOperation | null> {
  const [row] = await db
    .select({ requestSha256: operations.requestSha256, result: operations.result })
    .from(operations)
    .where(and(eq(operations.namespaceId, namespaceId), eq(operations.opId, opId)));
  return row ? { requestSha256: row.requestSha256, result: row.result as OperationResult } : null;
}

/**
 * Stores `result` under `opId` unless a result is already stored (a concurrent twin).
 * @returns the result that is stored now: `result` (`inserted` true), or the twin's.
 */
export async function storeOperation(
  db: Db | Tx,
  namespaceId: string,
  opId: string,
  requestSha256: string,
  result: OperationResult,
): Promise<StoredOperation & { inserted: boolean }> {
  const inserted = await db
    .insert(operations)
    .values({ namespaceId, opId, requestSha256, result })
    .onConflictDoNothing()
    .returning({ opId: operations.opId });
  if (inserted.length > 0) return { requestSha256, result, inserted: true };
  const existing = await readStoredOperation(db, namespaceId, opId);
  if (!existing) throw new Error("stored operation vanished");
  return { ...existing, inserted: false };
}

/**
 * What a repeat of `opId` gets: the stored result verbatim, or, when the id was first used for a
 * different request, a rejection `invalid_request` (details `{ reason: "op_id_reused" }`).
 */
export function replayResult(stored: StoredOperation, opId: string, path: string, requestSha256: string): OperationResult {
  if (stored.requestSha256 === requestSha256) return stored.result;
  return {
    opId,
    path,
    status: "rejected",
    code: "invalid_request",
    message: "opId was already used for a different operation; use a new opId for each operation",
    details: { reason: "op_id_reused" },
  };
}
