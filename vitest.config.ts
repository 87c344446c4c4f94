import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Tests import sibling workspaces from source, so no build is needed for unit tests.
// (End-to-end tests that spawn the CLIs use the built `dist/`; `npm test` builds first.)
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@teammem\/protocol$/, replacement: src("./packages/protocol/src/index.ts") },
      { find: /^@teammem\/scanner$/, replacement: src("./packages/scanner/src/index.ts") },
      { find: /^@teammem\/scanner\/testing$/, replacement: src("./packages/scanner/src/testing.ts") },
      { find: /^@teammem\/server$/, replacement: src("./apps/server/src/index.ts") },
      { find: /^@teammem\/server\/testing$/, replacement: src("./apps/server/src/testing.ts") },
      { find: /^@teammem\/client$/, replacement: src("./apps/client/src/index.ts") },
    ],
  },
  test: {
    include: ["{packages,apps}/*/{src,test}/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["./test/support/global-setup.ts"],
    // Two workers on the 2-core CI machine: most tests wait on PostgreSQL, PGlite or child
    // processes, so the second worker roughly halves the wall time (vitest's default leaves one core idle).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
