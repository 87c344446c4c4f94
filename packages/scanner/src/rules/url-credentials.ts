import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { ANY_SCHEME, isPlaceholderUrlCredential, urlCredentialPattern, URL_PREFIXES, urlCredentialMaterial } from "../rule-helpers/url-credentials.js";

/**
 * Password in a URL of any other scheme: `scheme://user:password@host` for every RFC 3986 scheme
 * (`[A-Za-z][A-Za-z0-9+.-]*`): FTP/FTPS/SFTP, SSH, SMTP(S), IMAP(S), POP3(S), LDAP(S), SVN, SOCKS,
 * RTSP, VNC, Telnet, `s3`, `git+ssh`, a custom `myapp+tls` … (Database and broker URLs are
 * `database-url-credentials`, HTTP/WebSocket ones `http-url-credentials`: for their schemes the
 * three rules match the same span and `yieldsTo` reports theirs, whatever the catalog order; the
 * three share one match of `://user:password@host` per occurrence, engine/compile.ts `SharedTail`.) Placeholders are not
 * reported (see `isPlaceholderUrlCredential` and the package README).
 * Format: RFC 3986 §3.1 (scheme), §3.2.1 (userinfo); RFC 1738 §3.1 (FTP "user:password@host").
 */
const password = (seed: number): string => `${randomChars(11, seed)}${randomChars(3, seed + 1, "0123456789")}`;

const rule: Rule = {
  id: "url-credentials",
  label: "URL with user name and password",
  prefixes: URL_PREFIXES,
  pattern: urlCredentialPattern(ANY_SCHEME),
  validate: (body) => !isPlaceholderUrlCredential(body),
  generic: true,
  yieldsTo: ["database-url-credentials", "http-url-credentials"],
  contains: "@", // every match holds the @ ending the user info
  fingerprintOf: urlCredentialMaterial,
  examples: () => ({
    positive: [
      `const SECURE_FTP = "ftps://deployment:${password(1)}@files.acme-corp.io/uploads";`,
      `SMTP_URL=smtps://mailer:${password(2)}@smtp.acme-corp.io:465`,
      `ldap://cn=admin:${password(3)}@ldap.acme-corp.io`,
      `BACKUP_TARGET=s3://backup:${password(4)}@minio.acme-corp.io:9000/bucket`,
      `EVENTS=myapp+tls://svc:${password(5)}@events.acme-corp.io:7000`,
    ],
    negative: [
      "ftp://user:pass@example.com", // placeholder password
      "sftp://deploy:<password>@host", // placeholder in angle brackets
      "smtp://smtp.example.com:587", // no credentials
      "s3://bucket/path@2x.png", // no user info: a path holding @
    ],
  }),
};
export default rule;
