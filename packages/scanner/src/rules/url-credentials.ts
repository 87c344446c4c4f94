import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlaceholderUrlCredential } from "../rule-helpers/url-credentials.js";

/**
 * Password in a URL of another protocol: FTP/FTPS/SFTP, SSH, SMTP(S), IMAP(S), POP3(S), LDAP(S),
 * SVN, SOCKS, RTSP, VNC, Telnet: `scheme://user:password@host`. (Database and broker URLs are
 * `database-url-credentials`, HTTP/WebSocket ones `http-url-credentials`.) Placeholders are not
 * reported (see `isPlaceholderUrlCredential`
 * and the package README).
 * Format: RFC 3986 §3.2.1 (userinfo); RFC 1738 §3.1 (FTP "user:password@host").
 */
const password = (seed: number): string => `${randomChars(11, seed)}${randomChars(3, seed + 1, "0123456789")}`;

const rule: Rule = {
  id: "url-credentials",
  label: "URL with user name and password",
  prefixes: ["://"],
  pattern:
    /(?<=(?<lead>(?:(?:git|hg|svn|bzr)\+)?(?:s?ftps?|ssh|smtps?|imaps?|pop3s?|ldaps?|svn|socks[45]?h?|rtsps?|vnc|telnet|sip))):\/\/(?<body>(?<secret>[^\s:@/?#'"<>\\]{0,128}:[^\s/?#'"<>\\@]{1,128}(?:@[^\s/?#'"<>\\@]{1,64}){0,2})@[A-Za-z0-9_.%{}$[\]:,-]{1,253})/iy,
  validate: (body) => !isPlaceholderUrlCredential(body),
  examples: () => ({
    positive: [
      `const SECURE_FTP = "ftps://deployment:${password(1)}@files.acme-corp.io/uploads";`,
      `SMTP_URL=smtps://mailer:${password(2)}@smtp.acme-corp.io:465`,
      `ldap://cn=admin:${password(3)}@ldap.acme-corp.io`,
    ],
    negative: [
      "ftp://user:pass@example.com", // placeholder password
      "sftp://deploy:<password>@host", // placeholder in angle brackets
      "smtp://smtp.example.com:587", // no credentials
    ],
  }),
};
export default rule;
