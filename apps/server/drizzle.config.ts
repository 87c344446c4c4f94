import { defineConfig } from "drizzle-kit";

// `npm run db:generate -w @teammem/server` writes a new SQL migration into /migrations.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.ts",
  out: "../../migrations",
});
