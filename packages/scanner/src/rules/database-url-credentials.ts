import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlaceholderUrlCredential, urlCredentialPattern, URL_PREFIXES, urlCredentialMaterial } from "../rule-helpers/url-credentials.js";

/**
 * Password in a database or message-broker connection URL: `scheme://user:password@host` for
 * PostgreSQL, MySQL/MariaDB, MongoDB (+srv), Redis, AMQP, MSSQL, CockroachDB, ClickHouse, CouchDB,
 * Neo4j, Cassandra, Kafka, NATS, MQTT (with optional `+driver` suffix and `jdbc:` prefix).
 * The prefilter literal is `://`; a lookbehind checks the scheme. A password with a real host is
 * reported even when it is a common word (`hunter2`); documentation placeholders (`password`,
 * `${DB_PASS}`, `<password>`, `example.com` hosts, `user:pass@localhost` …) are not: the exact rule
 * is `isPlaceholderUrlCredential` (rule-helpers/url-credentials.ts) and the package README.
 * Format: RFC 3986 §3.2.1 (userinfo); PostgreSQL docs, "Connection URIs"
 * (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS); MongoDB
 * "Connection String URI Format" (https://www.mongodb.com/docs/manual/reference/connection-string/).
 * secretlint rule `@secretlint/secretlint-rule-database-connection-string` covers the same ground.
 */
const password = (seed: number): string => `${randomChars(10, seed)}${randomChars(4, seed + 1, "0123456789")}`;

const rule: Rule = {
  id: "database-url-credentials",
  label: "Database connection URL with password",
  prefixes: URL_PREFIXES,
  pattern: urlCredentialPattern(String.raw`(?:postgres(?:ql)?|mysql(?:x)?|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|cockroachdb|clickhouse|couchdbs?|neo4j(?:\+s|\+ssc)?|bolt|cassandra|kafka|nats|mqtts?|memcached|oracle|db2)(?:\+[a-z0-9]{1,20})?`),
  validate: (body) => !isPlaceholderUrlCredential(body),
  generic: true,
  contains: "@", // every match holds the @ ending the user info
  fingerprintOf: urlCredentialMaterial,
  examples: () => ({
    positive: [
      `DATABASE_URL=postgres://app:${password(1)}@db.internal:5432/app`,
      `MONGO_URI="mongodb+srv://svc:${password(2)}@cluster0.ab1cd.mongodb.net/db?retryWrites=true"`,
      `spring.datasource.url=jdbc:mysql://admin:${password(3)}@10.0.0.5:3306/shop`,
      `REDIS_URL=redis://:${password(4)}@cache:6379/0`,
      `DATABASE_URL=postgresql://app:${"hun" + "ter2"}@db.prod.acme-corp.io:5432/app`, // a common word with a real host (pieces)
      `amqps://worker:${"Password" + "2024!"}@rabbit.internal.acme-corp.io/vhost`,
      `mongodb://admin:${"change" + "me"}@10.0.3.17:27017,10.0.3.18:27017/?replicaSet=rs0`,
      `postgres://${password(5)}:${password(6)}@localhost:5432/app`, // random password, even on localhost
    ],
    negative: [
      "postgres://user:password@localhost:5432/db", // placeholder password
      "mysql://app:${DB_PASSWORD}@db:3306/app", // template variable
      "postgres://postgres:postgres@localhost:5432/db", // password equals the user name (local default)
      "postgres://$(PGUSER):$(PGPASSWORD)@$(PGHOST)/db", // Makefile variables
      "mongodb://localhost:27017/database", // no credentials
      "postgres://app:<password>@db.acme-corp.io/app", // placeholder in angle brackets
      "mysql://app:$DB_PASSWORD@db.acme-corp.io/app", // shell variable
      "redis://default:hunter2@cache.example.com:6379", // documentation host
      `postgres://app:${"Sup3r" + "S3cret"}@db.test/app`, // reserved .test domain (built from pieces)
      "mongodb://root:root@127.0.0.1:27017", // local default
      "mysql://admin:REPLACE_WITH_PASSWORD@mysql.acme-corp.io:3306/db", // stand-in text
      "postgres://app:abc@db.acme-corp.io/app", // shorter than 4 characters
    ],
  }),
};
export default rule;
