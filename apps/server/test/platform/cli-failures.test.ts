/**
 * `teammem-server` failing the way users meet it: a busy port on the first start, a PostgreSQL
 * database that does not exist or does not answer. In-process through `run`.
 */
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { maskUrlPasswords } from "../../src/cli/failure-message.js";
import { cli, firstAdminToken, seededDataDir, startCli, tempDir } from "./cli-harness.js";

describe("teammem-server start on a busy port", () => {
  it("exits 1 naming the port and --port, creates no admin token, and the next start prints it", async () => {
    // The migrated template (no initdb): a busy port now fails before the folder is opened, so the second start would initdb, slow under load.
    const dataDir = await seededDataDir();
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const busy = await cli(["start", "--port", String(port), "--data-dir", dataDir]);
      expect(busy.status).toBe(1);
      expect(busy.stderr).toContain("already in use");
      expect(busy.stderr).toContain(String(port));
      expect(busy.stderr).toContain("--port");
      expect(busy.stdout).not.toContain("Admin token");
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    const server = await startCli(["--data-dir", dataDir]);
    expect(firstAdminToken(server.stdout())).toMatch(/^\S+\.\S+\.\S+$/);
    expect(await server.stop()).toBe(0);
  });
});

describe("teammem-server on an unusable data folder", () => {
  it("refuses a file, a path through a file and a folder holding other files, naming the folder, and leaves them as they were", async () => {
    const root = await tempDir("teammem-datadir-");
    const file = join(root, "notes.md");
    await writeFile(file, "a note\n", { mode: 0o644 });
    const busy = join(root, "memory");
    await mkdir(busy);
    await writeFile(join(busy, "MEMORY.md"), "- a note\n", { mode: 0o644 });
    for (const [dataDir, message] of [
      [file, `the data folder ${file} is a file, not a folder`],
      [join(file, "data"), `cannot use the data folder ${join(file, "data")}: a file stands where a folder of its path should be`],
      [busy, `the data folder ${busy} holds other files (MEMORY.md) and no embedded database: give a new or empty folder`],
    ] as const) {
      const result = await cli(["start", "--port", "0", "--data-dir", dataDir]);
      expect({ dataDir, status: result.status, stderr: result.stderr }).toEqual({
        dataDir,
        status: 1,
        stderr: expect.stringContaining(`${message}; choose another with --data-dir or TEAMMEM_DATA_DIR`),
      });
      expect(result.stdout).not.toContain("Admin token");
    }
    // Before, PGlite wrote its folders beside MEMORY.md and every file there became 0600.
    expect(await readdir(busy)).toEqual(["MEMORY.md"]);
    expect((await stat(join(busy, "MEMORY.md"))).mode & 0o777).toBe(0o644);
  });
});

describe("teammem-server against an unusable PostgreSQL", () => {
  const server = inject("postgresUrl");
  const withPassword = (url: string, host: string | null, database: string) => {
    const u = new URL(url);
    u.password = "hunter2-do-not-print";
    if (host) u.host = host;
    u.pathname = "/" + database;
    return u.toString();
  };

  it.skipIf(!server)("shows the cause of a missing database, never the password", async () => {
    const r = await cli(["migrate"], { DATABASE_URL: withPassword(server, null, "teammem_missing_db_x") });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('database "teammem_missing_db_x" does not exist');
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toContain("params:");
  });

  it("shows a refused connection as such, never the password", async () => {
    // A short wait for the database (TEAMMEM_DB_CONNECT_TIMEOUT_MS, default 30 s): the final message is the subject.
    const r = await cli(["migrate"], { DATABASE_URL: withPassword(server || "postgres://postgres@127.0.0.1:5432/postgres", "127.0.0.1:1", "x"), TEAMMEM_DB_CONNECT_TIMEOUT_MS: "500" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("ECONNREFUSED");
    expect(r.stderr).toContain("DATABASE_URL");
    expect(r.stderr).not.toContain("hunter2");
  });
});

describe("failure messages", () => {
  it("masks a password in any URL of a message", () => {
    // Built from pieces so no credential-shaped literal sits in the source.
    const password = ["p%40", "ss"].join("");
    expect(maskUrlPasswords(`at postgres://u:${password}@h:5432/db and postgresql://x@y/z`)).toBe("at postgres://u:***@h:5432/db and postgresql://x@y/z");
  });
});

describe("teammem-server admin commands given a server that cannot be used", () => {
  it("exits 2 on a --server port fetch never connects to, before calling it", async () => {
    const r = await cli(["bypass", "list", "--server", "http://127.0.0.1:9", "--token", "unused"]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: "" });
    expect(r.stderr).toContain('port 9 is one fetch never connects to (a WHATWG "bad port"): no server can be reached there');
  });

  it("exits 1 naming the URL and the cause when nothing listens there", async () => {
    const r = await cli(["bypass", "list", "--server", "http://127.0.0.1:4", "--token", "unused"]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 1, stdout: "" });
    expect(r.stderr).toContain("could not reach http://127.0.0.1:4 (connection refused: nothing listens on 127.0.0.1:4; is the server running, on that port? (ECONNREFUSED))");
  });
});

describe("teammem-server admin commands given a malformed number", () => {
  // Checked before any server or database is used: the unreachable --server is never called.
  const api = ["--server", "http://127.0.0.1:4", "--token", "unused"];
  it.each([
    [["audit", "list", "--before", "xyz", ...api], '--before: expected a whole number in decimal digits (got "xyz")'],
    [["audit", "list", "--limit", "lots", ...api], '--limit: expected a whole number in decimal digits (got "lots")'],
    [["purge", "--namespace", "web", "--path", "note.md", "--entry-version", "v1", "--reason", "x", ...api], '--entry-version must be a version number (a whole number from 1), got "v1"'],
    [["purge", "--namespace", "web", "--path", "note.md", "--entry-version", "-1", "--reason", "x", ...api], '--entry-version must be a version number (a whole number from 1), got "-1"'],
  ])("%j exits 2 naming the option and the value given", async (argv, message) => {
    const r = await cli([...argv]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: "" });
    expect(r.stderr).toContain(message);
  });
});
