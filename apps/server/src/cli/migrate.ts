/** `teammem-server migrate`: apply pending migrations and exit. */
import type { Command } from "@commander-js/extra-typings";
import { dataDirOption, out, withStore, type CliContext } from "./context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("migrate")
    .description("apply pending migrations and exit")
    .addOption(dataDirOption())
    .action(async (o) => {
      await withStore(ctx, { dataDir: o.dataDir, purpose: "migrate" }, async (store) => {
        out(ctx, `migrations applied (${store.description})`);
      });
    });
}
