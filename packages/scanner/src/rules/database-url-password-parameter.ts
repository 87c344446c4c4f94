import type { Rule } from "../rule.js";
import { PARAM_VALUE, examplePassword, isPlaceholderPasswordParameter } from "../rule-helpers/url-password-parameter.js";

/**
 * Password in a parameter of a JDBC URL: `password=` (or `pwd=`, any case) after `?`, `&`, `;`, `:`,
 * `,` or `(`, within the same URL (no whitespace, quote, `<>` or backtick before it, at most 512
 * characters after `jdbc:<subprotocol>`, never past another `jdbc:`). The finding is the value (up to
 * `&`, `;`, whitespace, a quote, `<>`, a backslash, a backtick or a brace; a SQL Server value in
 * braces, `password={…}`, is read inside them). Documented forms:
 * - MySQL Connector/J `jdbc:mysql://host:3306/db?user=app&password=…`, and its `address=(…)`/`(…)`
 *   key-value hosts (`(host=h,user=app,password=…)`); MariaDB Connector/J the same
 *   (https://dev.mysql.com/doc/connector-j/en/connector-j-reference-jdbc-url-format.html);
 * - Microsoft SQL Server `jdbc:sqlserver://host:1433;databaseName=db;user=app;password=…;`
 *   (https://learn.microsoft.com/sql/connect/jdbc/building-the-connection-url), jTDS the same;
 * - PostgreSQL pgJDBC `jdbc:postgresql://host/db?user=app&password=…`
 *   (https://jdbc.postgresql.org/documentation/use/);
 * - IBM Db2 `jdbc:db2://host:50000/db:user=app;password=…;`, H2 `jdbc:h2:…;USER=sa;PASSWORD=…`,
 *   Derby `jdbc:derby:db;user=app;password=…`, ClickHouse, Snowflake, Redshift `?password=`/`;PWD=`.
 * Judged by the URL credential rules' placeholder rules (rule-helpers/url-password-parameter.ts);
 * a URL without a host (an embedded database) counts as this machine's.
 */
/** The value that ends a match (the body): after the last key whose value runs to the end. */
const VALUE_AT_END = new RegExp(String.raw`[?&;:,(](?:password|pwd)=\{?(${PARAM_VALUE})$`, "i");

const password = (seed: number): string => examplePassword(seed, 4);

const rule: Rule = {
  id: "database-url-password-parameter",
  label: "Database URL with a password parameter",
  prefixes: ["jdbc:"],
  pattern: new RegExp(
    String.raw`(?<body>jdbc:[A-Za-z][A-Za-z0-9]{0,30}(?![A-Za-z0-9])(?:(?!jdbc:)[^\s'"\x60<>\\]){0,512}?[?&;:,(](?:password|pwd)=\{?(?<secret>${PARAM_VALUE}))`,
    "iy",
  ),
  validate: (body) => {
    const value = VALUE_AT_END.exec(body)?.[1] ?? "";
    return !isPlaceholderPasswordParameter(body, value);
  },
  generic: true,
  examples: () => ({
    positive: [
      `spring.datasource.url=jdbc:mysql://db.acme-corp.io:3306/prod?user=app&password=${password(1)}`,
      `jdbc:sqlserver://db.acme-corp.io:1433;databaseName=prod;user=app;password=${password(2)};encrypt=true`,
      `url: "jdbc:postgresql://10.0.3.17:5432/app?ssl=true&password=${password(3)}&user=svc"`,
      `jdbc:db2://db2.acme-corp.io:50000/SAMPLE:user=db2inst1;password=${password(4)};`,
      `jdbc:sqlserver://sql.acme-corp.io;user=app;password={${password(5)}}`, // braced value
      `jdbc:mysql://address=(host=db.acme-corp.io)(port=3306)(user=app)(password=${password(6)})/shop`,
      `jdbc:h2:file:~/data/app;USER=app;PASSWORD=${password(7)}`, // embedded: a random password is reported
      `jdbc:redshift://cluster.acme-corp.io:5439/dev;UID=admin;PWD=${password(8)}`,
      `jdbc:postgresql://db.acme-corp.io/app?password=${password(11)}==`, // a value ending in = (base64)
    ],
    negative: [
      "jdbc:mysql://db.acme-corp.io:3306/prod?user=app&password=${DB_PASSWORD}", // template
      "jdbc:sqlserver://db.acme-corp.io:1433;user=app;password=<password>;", // placeholder in angle brackets
      "jdbc:postgresql://db.acme-corp.io/app?user=app&password=YOUR_PASSWORD", // stand-in
      `jdbc:mysql://db.example.com:3306/prod?user=app&password=${password(9)}`, // documentation host
      "jdbc:h2:mem:test;USER=sa;PASSWORD=sa", // embedded, shorter than 4 characters
      "jdbc:postgresql://localhost/app?user=postgres&password=postgres", // local default
      "jdbc:mysql://db.acme-corp.io:3306/prod?user=app&sslpassword=x&passwordCharacterEncoding=utf8", // other parameters
      `jdbc:mysql://db.acme-corp.io/prod ?password=${password(10)}`, // past the URL's end
    ],
  }),
};
export default rule;
