/**
 * Vitest global setup: decides which PostgreSQL server the tests use, in this order:
 * 1. TEST_DATABASE_URL (CI, this machine): that server; each test creates its own database on it.
 * 2. a throwaway PostgreSQL container via testcontainers (needs Docker);
 * 3. a server on 127.0.0.1:5432 as user postgres, if one answers.
 * The URL reaches tests through `inject("postgresUrl")`, which they hand to `@teammem/server/testing`;
 * when none was found it is "", the reason is printed once, and only tests that need PostgreSQL fail.
 */
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

const LOCAL_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres";

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    project.provide("postgresUrl", url);
    return;
  }
  let dockerError = "";
  try {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
    const container = await new PostgreSqlContainer("postgres:16-alpine").start();
    project.provide("postgresUrl", container.getConnectionUri());
    return async () => {
      await container.stop();
    };
  } catch (err) {
    dockerError = String(err).split("\n")[0] ?? "";
  }
  if (await answers(LOCAL_DEFAULT)) {
    project.provide("postgresUrl", LOCAL_DEFAULT);
    return;
  }
  project.provide("postgresUrl", "");
  console.warn(
    "No PostgreSQL for tests: set TEST_DATABASE_URL to a server the tests may create databases on " +
      `(e.g. ${LOCAL_DEFAULT}), or run Docker for testcontainers (${dockerError}).`,
  );
}
