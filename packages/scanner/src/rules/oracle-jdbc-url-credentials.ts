import type { Rule } from "../rule.js";
import { examplePassword, isPlaceholderPasswordParameter } from "../rule-helpers/url-password-parameter.js";

/**
 * User and password in an Oracle JDBC URL: `jdbc:oracle:thin:<user>/<password>@<database>` (also
 * `oci`, `oci8`, `kprb`), the database as `//host:port/service`, `host:port:SID`, a TNS alias or a
 * `(DESCRIPTION=…)`. The finding is `user/password`. The user is an Oracle name (`[A-Za-z0-9_$#.]`,
 * up to 128) or a quoted one; the password runs to the last `@` before the database (no whitespace,
 * quote, `<>`, backslash), quoted or not.
 * Format: Oracle JDBC Developer's Guide, "Data Sources and URLs", thin-style service names
 * (https://docs.oracle.com/en/database/oracle/oracle-database/23/jjdbc/data-sources-and-URLs.html).
 * Judged by the URL credential rules' placeholder rules (rule-helpers/url-password-parameter.ts).
 */
const password = (seed: number): string => examplePassword(seed, 3);

const rule: Rule = {
  id: "oracle-jdbc-url-credentials",
  label: "Oracle JDBC URL with user name and password",
  prefixes: ["jdbc:oracle:"],
  pattern: new RegExp(
    String.raw`jdbc:oracle:(?:thin|oci8?|kprb):(?<body>(?<secret>(?:[A-Za-z0-9_$#.]{1,128}|"[^"\r\n]{1,128}")\/(?:"[^"\r\n]{1,128}"|[^\s'"\x60<>\\@]{1,128}))@(?:\/\/)?[A-Za-z0-9_.(\-]{1,253})`,
    "y",
  ),
  validate: (body) => {
    const at = body.lastIndexOf("@");
    const slash = body.indexOf("/", body.startsWith('"') ? body.indexOf('"', 1) : 0);
    if (slash === -1 || slash > at) return false;
    const user = body.slice(0, slash).replace(/"/g, "");
    const value = body.slice(slash + 1, at).replace(/^"(.*)"$/, "$1");
    return !isPlaceholderPasswordParameter(`//${user}@${body.slice(at + 1).replace(/^\/\//, "")}`, value);
  },
  generic: true,
  examples: () => ({
    positive: [
      `spring.datasource.url=jdbc:oracle:thin:scott/${password(1)}@db.acme-corp.io:1521/ORCL`,
      `jdbc:oracle:thin:app/${password(2)}@//db.acme-corp.io:1521/service`,
      `jdbc:oracle:oci:app/${password(3)}@PRODDB`, // a TNS alias
      `"jdbc:oracle:thin:app/\\"${password(4)}\\"@db.acme-corp.io:1521:ORCL"`.replace(/\\"/g, '"').replace(/^"|"$/g, ""), // a quoted password
    ],
    negative: [
      "jdbc:oracle:thin:@db.acme-corp.io:1521:ORCL", // no user or password
      "jdbc:oracle:thin:scott/<password>@db.acme-corp.io:1521/ORCL", // placeholder
      "jdbc:oracle:thin:scott/${ORACLE_PASSWORD}@db.acme-corp.io:1521/ORCL", // template
      `jdbc:oracle:thin:scott/${password(5)}@db.example.com:1521/ORCL`, // documentation host
      "jdbc:oracle:thin:system/system@localhost:1521:XE", // this machine, the password is the user name
    ],
  }),
};
export default rule;
