/**
 * Issue 10, credentials in connection URLs: every scheme a URL rule documents is found in any case
 * (schemes are case-insensitive, RFC 3986 §3.1: `Postgres://`, `HTTPS://`) and after a VCS prefix
 * (`git+ssh://`, `svn+ssh://`, `hg+https://`), and a password that merely starts with `$` is a
 * password unless it reads as a variable. Passwords are built from pieces at run time.
 */
import { describe, expect, it } from "vitest";
import { isPlaceholderUrlCredential } from "../rule-helpers/url-credentials.js";
import { scan } from "../scan.js";

/** Documented schemes of each URL rule (rule docstrings and the package README). */
const SCHEMES: Record<string, readonly string[]> = {
  "database-url-credentials": ["postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps", "mssql", "sqlserver", "cockroachdb", "clickhouse", "couchdb", "neo4j", "neo4j+s", "bolt", "cassandra", "kafka", "nats", "mqtt", "mqtts", "oracle", "postgresql+asyncpg", "jdbc:postgresql"],
  "http-url-credentials": ["http", "https", "ws", "wss", "git+https", "git+http", "hg+https", "svn+https", "bzr+https"],
  "url-credentials": ["ftp", "ftps", "sftp", "ssh", "smtp", "smtps", "imap", "imaps", "pop3", "ldap", "ldaps", "svn", "svn+ssh", "git+ssh", "socks5", "rtsp", "vnc", "telnet"],
};

const password = "hun" + "ter2"; // a common word: reported with a real host
const casings = (scheme: string) => [scheme, scheme[0]!.toUpperCase() + scheme.slice(1), scheme.toUpperCase()];

describe.each(Object.entries(SCHEMES))("%s", (ruleId, schemes) => {
  it.each(schemes.flatMap((s) => casings(s).map((c) => [c])))("reports %s://user:<password>@host", (scheme) => {
    const text = `URL=${scheme}://deploy:${password}@svc.acme-corp.io:1234/x`;
    const found = scan(text).map((f) => [f.ruleId, text.slice(f.offset!, f.endOffset!)]);
    expect(found).toEqual([[ruleId, `deploy:${password}`]]);
  });
});

describe("a password starting with $", () => {
  it("is a password unless a variable follows the $", () => {
    expect(isPlaceholderUrlCredential(`app:$3cr3t${"Pa55"}@db.acme-corp.io`)).toBe(false);
    expect(isPlaceholderUrlCredential(`app:$!${"x9Kq2w"}@db.acme-corp.io`)).toBe(false);
    for (const variable of ["$DB_PASSWORD", "$db_pass", "$_PASS", "${DB_PASSWORD}", "$(PGPASSWORD)"]) {
      expect(isPlaceholderUrlCredential(`app:${variable}@db.acme-corp.io`), variable).toBe(true);
    }
  });
});

describe("default passwords on a compose service or LAN host (README: only this machine exempts defaults)", () => {
  const pg = "post" + "gres";
  it.each([
    [`${pg}://${pg}:${pg}@db:5432/app`, `${pg}:${pg}`],
    [`mysql://root:${"ro" + "ot"}@mysql:3306/db`, "root:root"],
    [`mongodb://root:${"exam" + "ple"}@mongo:27017/`, "root:example"],
    [`amqp://guest:${"gu" + "est"}@rabbitmq:5672/`, "guest:guest"],
    [`http://admin:${"ad" + "min"}@192.168.1.1/`, "admin:admin"],
  ])("reports %s", (url, credential) => {
    expect(scan(url).map((f) => url.slice(f.offset!, f.endOffset!))).toEqual([credential]);
  });
  it("does not report the same default password on localhost", () => {
    expect(scan(`${pg}://${pg}:${pg}@localhost:5432/app`)).toEqual([]);
  });
});
