/**
 * try14 F6 (issue 10): passwords in JDBC URL parameters and Oracle's `user/password@` were not
 * found. Passwords are built from pieces at run time, so this file scans clean.
 */
import { describe, expect, it } from "vitest";
import { fakeGithubToken, randomChars } from "../fakes.js";
import { scan } from "../scan.js";

const pw = randomChars(8, 41) + randomChars(4, 42, "0123456789");
const found = (text: string) => scan(text).map((f) => [f.ruleId, text.slice(f.offset!, f.endOffset!)]);

describe("JDBC URL passwords (try14 F6)", () => {
  it.each([
    ["MySQL Connector/J query", `jdbc:mysql://db.acme.io:3306/prod?user=app&password=${pw}`],
    ["SQL Server properties", `jdbc:sqlserver://db.acme.io:1433;databaseName=prod;user=app;password=${pw};`],
    ["SQL Server, braced value", `jdbc:sqlserver://db.acme.io:1433;user=app;password={${pw}};`],
    ["SQL Server, key in capitals", `jdbc:sqlserver://db.acme.io:1433;User=app;Password=${pw}`],
    ["MariaDB, password first", `jdbc:mariadb://db.acme.io:3306/prod?password=${pw}&user=app`],
    ["pgJDBC in YAML", `  url: jdbc:postgresql://db.acme.io:5432/app?sslmode=require&password=${pw}`],
    ["MySQL key-value host", `jdbc:mysql://(host=db.acme.io,port=3306,user=app,password=${pw})/prod`],
    ["Db2 properties after the database", `jdbc:db2://db.acme.io:50000/SAMPLE:user=db2inst1;password=${pw};`],
    ["H2 server", `jdbc:h2:tcp://db.acme.io:9092/~/app;USER=app;PASSWORD=${pw}`],
    ["Snowflake", `jdbc:snowflake://acme.snowflakecomputing.com/?user=app&password=${pw}&db=prod`],
    ["Redshift PWD", `jdbc:redshift://c1.acme.io:5439/dev;UID=admin;PWD=${pw}`],
    ["in a Markdown table", `| prod | \`jdbc:mysql://db.acme.io/prod?user=app&password=${pw}\` |`],
    ["HTML-escaped &", `<a href="jdbc:mysql://db.acme.io/prod?user=app&amp;password=${pw}">db</a>`],
  ])("%s: the password value is database-url-password-parameter", (_name, text) => {
    expect(found(text)).toEqual([["database-url-password-parameter", pw]]);
  });

  it.each([
    ["thin, host:port/service", `jdbc:oracle:thin:scott/${pw}@db.acme.io:1521/ORCL`],
    ["thin, //host", `jdbc:oracle:thin:scott/${pw}@//db.acme.io:1521/svc`],
    ["thin, host:port:SID", `jdbc:oracle:thin:scott/${pw}@db.acme.io:1521:ORCL`],
    ["oci, TNS alias", `jdbc:oracle:oci:scott/${pw}@PRODDB`],
    ["thin, descriptor", `jdbc:oracle:thin:scott/${pw}@(DESCRIPTION=(ADDRESS=(HOST=db.acme.io)(PORT=1521)))`],
  ])("Oracle %s: user/password is oracle-jdbc-url-credentials", (_name, text) => {
    expect(found(text)).toEqual([["oracle-jdbc-url-credentials", `scott/${pw}`]]);
  });

  it("a user:password URL with a password parameter too gives both", () => {
    const other = randomChars(12, 43);
    expect(found(`jdbc:mysql://app:${other}@db.acme.io/prod?password=${pw}`)).toEqual([
      ["database-url-credentials", `app:${other}`],
      ["database-url-password-parameter", pw],
    ]);
  });

  it("a vendor token as the password is reported by its vendor rule", () => {
    expect(scan(`jdbc:mysql://db.acme.io/prod?password=${fakeGithubToken("ghp_", 44)}`).map((f) => f.ruleId)).toEqual(["github-pat"]);
  });

  it.each([
    ["a template", "jdbc:mysql://db.acme.io/prod?user=app&password=${DB_PASSWORD}"],
    ["a Spring placeholder", "jdbc:sqlserver://db.acme.io;user=app;password={{db_password}};"],
    ["a stand-in", "jdbc:mysql://db.acme.io/prod?user=app&password=REPLACE_WITH_PASSWORD&x=1"],
    ["masked", "jdbc:mysql://db.acme.io/prod?password=********"],
    ["a documentation host", `jdbc:mysql://db.example.com/prod?password=${pw}`],
    ["a .test host", `jdbc:postgresql://db.acme.test/app?password=${pw}`],
    ["localhost, the user's name", "jdbc:postgresql://localhost:5432/app?user=app&password=app"],
    ["embedded, a default", "jdbc:derby:memory:db;user=app;password=admin"],
    ["another parameter ending in password", `jdbc:postgresql://db.acme.io/app?sslpassword=${pw}`],
    ["a key holding password", `jdbc:mysql://db.acme.io/prod?passwordCharacterEncoding=${pw}`],
    ["an empty value", "jdbc:mysql://db.acme.io/prod?user=app&password=&ssl=true"],
    ["the key after the URL ended", `jdbc:mysql://db.acme.io/prod and then ?password=${pw}`],
    ["Oracle without credentials", "jdbc:oracle:thin:@db.acme.io:1521:ORCL"],
    ["Oracle, placeholder", "jdbc:oracle:thin:scott/<password>@db.acme.io:1521/ORCL"],
    ["Oracle, documentation host", `jdbc:oracle:thin:scott/${pw}@db.example.org:1521/ORCL`],
  ])("%s is not reported", (_name, text) => {
    expect(found(text)).toEqual([]);
  });
});
