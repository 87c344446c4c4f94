#!/usr/bin/env node
// Soak run of the sync model-based test (test/model/): random action lists for N minutes.
//
//   npm run soak -- --minutes N [--seed S]
//
// Runs test/model/sync-model.test.ts through vitest with TEAMMEM_SOAK_MINUTES=N (and
// TEAMMEM_SOAK_SEED=S to replay a run), so it uses the same PostgreSQL as the tests
// (TEST_DATABASE_URL, else a container, else 127.0.0.1:5432). Prints the seed it starts from; a
// failure prints fast-check's report: the seed and path to replay, and the shrunk action list.
// Exit code: vitest's (0 when no failure was found).
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const usage = "usage: npm run soak -- --minutes N [--seed S]";
let values;
try {
  ({ values } = parseArgs({ options: { minutes: { type: "string" }, seed: { type: "string" } } }));
} catch (err) {
  console.error(`soak: ${err.message}\n${usage}`);
  process.exit(2);
}
const minutes = Number(values.minutes ?? "");
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error(`soak: --minutes must be a positive number\n${usage}`);
  process.exit(2);
}
if (values.seed !== undefined && !/^-?\d+$/.test(values.seed)) {
  console.error(`soak: --seed must be an integer\n${usage}`);
  process.exit(2);
}
const env = { ...process.env, TEAMMEM_SOAK_MINUTES: String(minutes), ...(values.seed !== undefined ? { TEAMMEM_SOAK_SEED: values.seed } : {}) };
const result = spawnSync("npx", ["vitest", "run", "test/model/sync-model.test.ts"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
