/**
 * `teammem-server epoch show|rotate`: the server's identity and epoch. Clients reconcile by
 * content hashes when the epoch changes; rotate after restoring a file-level copy of the database.
 * A rotation is an `epoch_rotated` audit event (actor `cli`) in every team.
 */
import type { Command } from "@commander-js/extra-typings";
import { CLI_ACTOR, recordServerWideAuditEvent } from "../audit/events.js";
import { loadServerIdentity, startNewEpoch, type ServerIdentity } from "../identity/server-identity.js";
import { dataDirOption, err, out, withStore, type CliContext } from "./context.js";

const describeIdentity = (i: ServerIdentity) => `server ${i.server.id} epoch ${i.server.epoch} (since ${i.epochStartedAt}: ${i.epochReason})`;

export function register(program: Command, ctx: CliContext): void {
  const epoch = program
    .command("epoch")
    .description("the server's identity and epoch: clients reconcile by content hashes when the epoch changes");
  epoch
    .command("show")
    .description("print the server id and the current epoch, when and why it started")
    .addOption(dataDirOption())
    .action(async (o) => {
      await withStore(ctx, { dataDir: o.dataDir, purpose: "epoch show" }, async (store) => {
        out(ctx, describeIdentity(await loadServerIdentity(store.database.db)));
      });
    });
  epoch
    .command("rotate")
    .description(
      "start a new epoch, so every client reconciles on its next sync: run it after restoring a file-level copy of the " +
        "database (data folder, volume snapshot), which the server cannot tell from the original",
    )
    .option("--reason <text>", "why, shown to operators and clients", "rotated by an operator (teammem-server epoch rotate)")
    .addOption(dataDirOption())
    .action(async (o) => {
      await withStore(ctx, { dataDir: o.dataDir, purpose: "epoch rotate" }, async (store) => {
        const db = store.database.db;
        const before = await loadServerIdentity(db);
        // The new epoch commits with its audit events (one per team: every team's clients reconcile).
        const after = await db.transaction(async (tx) => {
          const identity = await startNewEpoch(tx, o.reason);
          await recordServerWideAuditEvent(tx, {
            actor: CLI_ACTOR,
            kind: "epoch_rotated",
            epoch: identity.server.epoch,
            previousEpoch: before.server.epoch,
            reasonText: o.reason,
          });
          return identity;
        });
        out(ctx, `new epoch: ${describeIdentity(after)}; previous epoch ${before.server.epoch}`);
        err(ctx, "running servers on this database answer the new epoch within 5 s; clients reconcile on their next sync");
      });
    });
}
