/**
 * Configuration: the environment validated with zod before anything is opened (every bad variable
 * listed at once, exit 2), `.env.example` documenting exactly the variables the server reads, and the
 * embedded database's folder owner-only (folders 0700, files 0600; issue 12).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EnvError, parseServerEnv, SERVER_ENV_NAMES } from "../../src/config/server-env.js";
import { openStore, readServerEnv } from "../../src/server.js";
import { LISTEN_HOST_RULE, listenFailure } from "../../src/http/listen-address.js";
import { seedPgliteDataDir } from "../../src/testing.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const ENV_EXAMPLE = fileURLToPath(new URL("../../../../.env.example", import.meta.url));

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseServerEnv(env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(EnvError);
    return (e as EnvError).problems;
  }
}

/** `.env.example`'s lines: each variable ships commented out as `# NAME=default`. */
function exampleLines(): string[] {
  return readFileSync(ENV_EXAMPLE, "utf8").split("\n");
}

/** `.env.example`'s `# NAME=default` lines, as name → default. */
function exampleVariables(): Map<string, string> {
  const defaults = exampleLines().filter((l) => /^# [A-Z_]+=/.test(l));
  return new Map(defaults.map((l) => [l.slice(2, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

describe("server environment", () => {
  it("lists every bad variable at once, one line each, never quoting a value", () => {
    const secret = "short-secret-value";
    expect(
      problemsOf({
        DATABASE_URL: "mysql://root@db/teammem",
        PORT: "80a",
        LOG_LEVEL: "loud",
        JWT_SECRET: secret,
        TEAMMEM_MAX_BODY_BYTES: "-1",
        TEAMMEM_DB_POOL_SIZE: "0",
        TEAMMEM_SHUTDOWN_TIMEOUT_MS: "1.5",
      }),
    ).toEqual([
      "DATABASE_URL: must be a postgres:// or postgresql:// URL",
      "TEAMMEM_DB_POOL_SIZE: must be a whole number from 1 to 1000",
      "JWT_SECRET: must be at least 32 characters",
      "PORT: must be a whole number from 0 to 65535",
      "LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent",
      "TEAMMEM_SHUTDOWN_TIMEOUT_MS: must be a whole number from 0 to 600000 (milliseconds)",
      "TEAMMEM_MAX_BODY_BYTES: must be a whole number from 1 to 2147483648",
    ]);
  });

  it("takes empty values as unset and ignores variables it does not read", () => {
    expect(parseServerEnv({ DATABASE_URL: "", PORT: "", LOG_LEVEL: "", HOME: "/root" })).toEqual({ LOG_LEVEL: "info" });
    expect(readServerEnv({ PORT: "8081", TEAMMEM_DB_LOCK_TIMEOUT_MS: "250" })).toEqual({ PORT: 8081, TEAMMEM_DB_LOCK_TIMEOUT_MS: 250, LOG_LEVEL: "info" });
  });

  it(".env.example documents exactly the variables the server reads, each with a valid default", () => {
    const example = exampleVariables();
    expect([...example.keys()].sort()).toEqual([...SERVER_ENV_NAMES].sort());
    expect(problemsOf(Object.fromEntries(example))).toEqual([]);
  });

  it(".env.example sets nothing when copied to .env: the Docker image's TEAMMEM_DATA_DIR and HOST stay in force", () => {
    // `docker run --env-file .env` and compose's env_file would let an uncommented default override
    // the image's ENV (the data folder outside the /data volume, a loopback-only listener).
    expect(exampleLines().filter((l) => /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/.test(l))).toEqual([]);
    const dockerfile = readFileSync(fileURLToPath(new URL("../../../../Dockerfile", import.meta.url)), "utf8");
    for (const name of ["TEAMMEM_DATA_DIR", "HOST"]) expect(dockerfile).toMatch(new RegExp(`\\b${name}=`));
    expect(readFileSync(fileURLToPath(new URL("../../../../compose.yaml", import.meta.url)), "utf8")).toMatch(/env_file:\s*\n\s*- path: \.env\s*\n\s*required: false/);
  });

  it("teammem-server start with a bad environment exits 2 listing every bad variable and opens nothing", () => {
    const dataDir = join(tempDir("teammem-env-"), "data");
    const env: Record<string, string> = { PATH: process.env["PATH"] ?? "", PORT: "http", LOG_LEVEL: "verbose", TEAMMEM_DATA_DIR: dataDir };
    const r = spawnSync(process.execPath, [CLI, "start"], { encoding: "utf8", env, timeout: 60_000 });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "teammem-server: invalid environment (nothing was started):\n" +
        "  PORT: must be a whole number from 0 to 65535\n" +
        "  LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent\n",
    });
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe("listen address", () => {
  const start = (args: string[], extra: Record<string, string> = {}) => {
    const dataDir = join(tempDir("teammem-listen-"), "data");
    const env: Record<string, string> = { PATH: process.env["PATH"] ?? "", TEAMMEM_DATA_DIR: dataDir, ...extra };
    const r = spawnSync(process.execPath, [CLI, "start", ...args], { encoding: "utf8", env, timeout: 50_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, opened: existsSync(dataDir) };
  };

  it("refuses a HOST that is neither an IP address nor a host name, as the other bad variables", () => {
    for (const host of ["not a host", "999.1.1.1", "1.2.3", "http://example.com", "-x.example.com", "[::1]", "a..b", "x".repeat(64)]) {
      expect({ host, problems: problemsOf({ HOST: host }) }).toEqual({ host, problems: [`HOST: ${LISTEN_HOST_RULE}`] });
    }
    for (const host of ["127.0.0.1", "0.0.0.0", "::", "::1", "fe80::1%lo", "localhost", "memory.example.com", "host-1", "example.com."]) {
      expect({ host, problems: problemsOf({ HOST: host }) }).toEqual({ host, problems: [] });
    }
  });

  it("teammem-server start with HOST=not a host, or --host 999.1.1.1, exits 2 naming it and opens nothing", () => {
    expect(start([], { HOST: "not a host", PORT: "http" })).toEqual({
      status: 2,
      stdout: "",
      stderr: `teammem-server: invalid environment (nothing was started):\n  HOST: ${LISTEN_HOST_RULE}\n  PORT: must be a whole number from 0 to 65535\n`,
      opened: false,
    });
    const flag = start(["--host", "999.1.1.1"]);
    expect(flag).toEqual({ status: 2, stdout: "", stderr: expect.stringContaining(`a host ${LISTEN_HOST_RULE}`), opened: false });
  });

  it("teammem-server start on an address no interface of the machine has exits 1 naming host:port, before it opens or waits for the database", () => {
    // PostgreSQL refused on port 1 and a 40 s wait for it: checked after the database, the start would print wait lines and time out.
    const r = start(["--host", "192.0.2.1", "--port", "8080"], { DATABASE_URL: "postgres://teammem@127.0.0.1:1/teammem", TEAMMEM_DB_CONNECT_TIMEOUT_MS: "40000" });
    expect(r).toEqual({
      status: 1,
      stdout: "",
      stderr:
        "teammem-server: cannot listen on 192.0.2.1:8080: no network interface of this machine has the address 192.0.2.1; " +
        "use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or an address of this machine, with --host or HOST\n",
      opened: false,
    });
  });

  it("names host:port and the fix for each way a listen fails, and leaves other errors alone", () => {
    const failure = (code: string, host = "::1", port = 80) => listenFailure(Object.assign(new Error(`listen ${code}`), { code }), host, port)?.message;
    expect(failure("EACCES")).toBe("cannot listen on [::1]:80: permission denied (ports below 1024 need privileges); choose a port from 1024 up with --port or PORT");
    expect(failure("EADDRINUSE", "0.0.0.0", 8080)).toBe(
      "cannot listen on 0.0.0.0:8080: the address is already in use; stop the process using it or choose another port with --port <port> (--port 0: any free port)",
    );
    expect(failure("ENOTFOUND", "memory.example.com", 8080)).toMatch(/^cannot listen on memory\.example\.com:8080: the host name memory\.example\.com does not resolve \(ENOTFOUND\)/);
    expect(failure("ECONNREFUSED")).toBeUndefined();
    expect(listenFailure(new Error("no code"), "::1", 80)).toBeNull();
  });
});

describe("unusable data folder", () => {
  const HINT = "; choose another with --data-dir or TEAMMEM_DATA_DIR\n";
  /** `start` on `dataDir` as `user` (root's permissions would let it write anywhere: the test runs it as nobody then). */
  const start = (dataDir: string, user: { uid?: number; gid?: number } = {}, node = process.execPath) => {
    const env = { PATH: process.env["PATH"] ?? "" };
    const r = spawnSync(node, [CLI, "start", "--port", "0", "--data-dir", dataDir], { encoding: "utf8", env, timeout: 50_000, ...user });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it("teammem-server start --data-dir /proc/x (where nothing can be created) exits 1 at once naming the folder", () => {
    // Node's recursive mkdir never returned there: the start hung.
    expect(start("/proc/teammem-x")).toEqual({
      status: 1,
      stdout: "",
      stderr: `teammem-server: cannot create the data folder /proc/teammem-x: the file system there does not allow creating it (ENOENT: /proc, /sys?)${HINT}`,
    });
  });

  // As root the folder's mode would not stop the server: it runs as nobody, with a node nobody may
  // run (a node under root's private home may not be: the machine's node then, as in the scanner's
  // run.test.ts), and a checkout nobody can read; else the test is skipped.
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const nodeForUser = [process.execPath, "/usr/bin/node"].find((n) => spawnSync(n, [CLI, "--version"], { timeout: 50_000, ...user }).status === 0);

  it.skipIf(nodeForUser === undefined)("teammem-server start on a read-only folder, or a new folder inside one, exits 1 naming the folder and writes nothing", () => {
    const root = tempDir("teammem-ro-");
    chmodSync(root, 0o755);
    const readOnly = join(root, "ro");
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(readOnly, 0o555);
    expect(start(readOnly, user, nodeForUser)).toEqual({ status: 1, stdout: "", stderr: `teammem-server: cannot write in the data folder ${readOnly}: permission denied (the server runs as another user than the folder's owner?)${HINT}` });
    expect(start(join(readOnly, "data"), user, nodeForUser)).toEqual({
      status: 1,
      stdout: "",
      stderr: `teammem-server: cannot create the data folder ${join(readOnly, "data")}: permission denied (the server runs as another user than the folder's owner?)${HINT}`,
    });
    expect(readdirSync(readOnly)).toEqual([]);
  });
});

/** Every path below `dir` (itself included) with its permission bits, e.g. `base/1/112 600`. */
function modesBelow(dir: string): Map<string, string> {
  const out = new Map<string, string>([[".", (statSync(dir).mode & 0o777).toString(8)]]);
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      const key = rel ? `${rel}/${e.name}` : e.name;
      out.set(key, (statSync(path).mode & 0o777).toString(8));
      if (e.isDirectory()) walk(path, key);
    }
  };
  walk(dir, "");
  return out;
}

function notPrivate(dir: string): string[] {
  const bad: string[] = [];
  for (const [path, mode] of modesBelow(dir)) {
    const isDir = statSync(path === "." ? dir : join(dir, path)).isDirectory();
    if (mode !== (isDir ? "700" : "600")) bad.push(`${path} ${mode}`);
  }
  return bad;
}

describe("embedded database folder", () => {
  it("creates the folder 0700 and every file in it 0600, also after writes and a restart", async () => {
    const dataDir = join(tempDir("teammem-modes-"), "data");
    const first = await openStore(readServerEnv({}), dataDir, "test");
    await first.database.db.execute("CREATE TABLE mode_probe AS SELECT generate_series(1, 20000) AS n");
    expect(notPrivate(dataDir)).toEqual([]); // also the lock file, while held
    await first.close();
    expect(modesBelow(dataDir).size).toBeGreaterThan(500);
    expect(notPrivate(dataDir)).toEqual([]);

    const second = await openStore(readServerEnv({}), dataDir, "test");
    await second.database.db.execute("CREATE INDEX mode_probe_n ON mode_probe (n)");
    await second.close();
    expect(notPrivate(dataDir)).toEqual([]);
  });

  it("makes an existing folder left world-readable by an older version owner-only at the next open", async () => {
    const dataDir = join(tempDir("teammem-modes-"), "data");
    await seedPgliteDataDir(dataDir); // a folder written with the process's umask, no initdb: the subject is the next open
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "postgresql.conf"), 0o666);
    chmodSync(join(dataDir, "base"), 0o777);
    await (await openStore(readServerEnv({}), dataDir, "test")).close();
    expect(notPrivate(dataDir)).toEqual([]);
  });
});
