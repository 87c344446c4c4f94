import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

const ALL = ["{packages,apps}/*/{src,test}/**/*.test.ts", "test/**/*.test.ts"];
/**
 * Test files that share their worker's module graph (`isolate: false`): the in-process server route,
 * audit and protocol tests and the client's unit tests. Each file otherwise starts a worker and
 * imports the server's module graph (fastify, drizzle, pg, PGlite's WASM, zod) again: the 39 server
 * and protocol files took 257 s of CPU isolated, 87 s shared (test/README.md "Suite time"). They start no processes, add no process listeners, keep no
 * module-level state, and restore what they stub (`vi.restoreAllMocks`, `vi.useRealTimers`). Files
 * that spawn processes, time CPU (scanner linear.test) or run a cluster of their own stay isolated.
 */
const SHARED_WORKER = [
  "apps/server/test/routes/**/*.test.ts",
  "apps/server/test/audit/**/*.test.ts",
  "packages/protocol/**/*.test.ts",
  // The client's unit tests (issue 12: 25 s of CPU isolated, 10 s shared). Not state/lock.test.ts,
  // whose subject is another process holding the lock (it spawns and kills one).
  "apps/client/src/*.test.ts",
  "apps/client/src/{agents,checks,commands,http,local,merge,watch}/**/*.test.ts",
  "apps/client/src/state/outbox.test.ts",
];

// Tests import sibling workspaces from source, so no build is needed for unit tests.
// (End-to-end tests that spawn the CLIs use the built `dist/`; `npm test` builds first.)
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@teammem\/protocol$/, replacement: src("./packages/protocol/src/index.ts") },
      { find: /^@teammem\/scanner$/, replacement: src("./packages/scanner/src/index.ts") },
      { find: /^@teammem\/scanner\/testing$/, replacement: src("./packages/scanner/src/testing.ts") },
      { find: /^@teammem\/scanner\/invisible-characters$/, replacement: src("./packages/scanner/src/invisible-characters.ts") },
      { find: /^@teammem\/server$/, replacement: src("./apps/server/src/index.ts") },
      { find: /^@teammem\/server\/testing$/, replacement: src("./apps/server/src/testing.ts") },
      { find: /^@teammem\/client$/, replacement: src("./apps/client/src/index.ts") },
    ],
  },
  test: {
    globalSetup: ["./test/support/global-setup.ts"],
    // Two workers on the 2-core CI machine: most tests wait on PostgreSQL, PGlite or child
    // processes, so the second worker roughly halves the wall time (vitest's default leaves one core idle).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "shared-worker", include: SHARED_WORKER, isolate: false } },
      { extends: true, test: { name: "isolated", include: ALL, exclude: [...SHARED_WORKER, "**/node_modules/**"] } },
    ],
  },
});
