/**
 * The model-based test of sync (see sync-model.ts for the actions and invariants). CI: a few runs
 * from a fixed seed. `npm run soak -- --minutes N` runs it for N minutes from a random seed
 * (TEAMMEM_SOAK_MINUTES, TEAMMEM_SOAK_SEED) and prints the seed and the shrunk action list of a failure.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { actionArb, runModel, type Action } from "./sync-model.js";

const soakMinutes = Number(process.env["TEAMMEM_SOAK_MINUTES"] ?? "0");
const soakSeed = process.env["TEAMMEM_SOAK_SEED"];
const soaking = soakMinutes > 0;
const seed = soakSeed !== undefined && soakSeed !== "" ? Number(soakSeed) : soaking ? Date.now() ^ (Math.random() * 0x7fffffff) : 20261130;

describe("sync model", () => {
  it(
    "3 clients on one server: random edits, renames, deletes, private notes, offline periods, crashes mid-flush, SIGKILLed syncs, lost state, private notes written to team/ by mistake offline, server restarts and restores from a backup converge without losing acknowledged lines or leaking private ones",
    async () => {
      if (soaking) console.log(`soak: ${soakMinutes} minute(s) from seed ${seed}`);
      let runs = 0;
      let actions = 0;
      const counted = async (list: Action[]) => {
        runs++;
        actions += list.length;
        await runModel(list);
      };
      await fc.assert(fc.asyncProperty(fc.array(actionArb, { minLength: 4, maxLength: soaking ? 40 : 16 }), counted), {
        seed,
        numRuns: soaking ? Number.MAX_SAFE_INTEGER : 3,
        // CI: a failure is shrunk for at most a minute, then reported as far as it got (within the test's timeout).
        ...(soaking ? { interruptAfterTimeLimit: soakMinutes * 60_000, markInterruptAsFailure: false } : { interruptAfterTimeLimit: 60_000 }),
        verbose: 1,
      });
      if (soaking) console.log(`soak: ${runs} action list(s), ${actions} action(s), no failure (seed ${seed})`);
    },
    soaking ? (soakMinutes + 60) * 60_000 : 150_000,
  );
});
