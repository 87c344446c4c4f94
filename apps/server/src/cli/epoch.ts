/**
 * `teammem-server epoch show|rotate`: the server's identity and epoch. Clients reconcile by
 * content hashes when the epoch changes; rotate after restoring a file-level copy of the database.
 * A rotation is an `epoch_rotated` audit event (actor `cli`) in every team, committed with the epoch
 * and naming the epoch it replaced as read under the epoch's row lock (two rotations at once chain).
 */
import type { Command } from "@commander-js/extra-typings";
import { CLI_ACTOR } from "../audit/events.js";
import { loadServerIdentity, rotateEpoch, type ServerIdentity } from "../identity/server-identity.js";
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
        const { previous, current } = await rotateEpoch(store.database.db, o.reason, CLI_ACTOR);
        out(ctx, `new epoch: ${describeIdentity(current)}; previous epoch ${previous.server.epoch}`);
        err(ctx, "running servers on this database answer the new epoch within 5 s; clients reconcile on their next sync");
      });
    });
}
