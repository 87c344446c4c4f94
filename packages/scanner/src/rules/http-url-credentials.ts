import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlaceholderUrlCredential, urlCredentialPattern, URL_PREFIXES, urlCredentialMaterial } from "../rule-helpers/url-credentials.js";

/**
 * Basic-auth credentials in an HTTP(S) or WebSocket URL: `https://user:password@host`, including
 * `git+https://<token>:x-oauth-basic@github.com/…` dependency URLs. The prefilter literal is `://`;
 * a lookbehind checks the scheme. Documentation placeholders are not reported (see
 * `isPlaceholderUrlCredential` and the package README).
 * Format: RFC 3986 §3.2.1 (userinfo, deprecated "user:password" form) and RFC 7617 (Basic auth);
 * secretlint rule `@secretlint/secretlint-rule-basicauth`; also covers gitleaks
 * `sidekiq-sensitive-url`.
 */
const password = (seed: number): string => `${randomChars(12, seed)}${randomChars(3, seed + 1, "0123456789")}`;

const rule: Rule = {
  id: "http-url-credentials",
  label: "HTTP URL with user name and password",
  prefixes: URL_PREFIXES,
  pattern: urlCredentialPattern(String.raw`(?:(?:git|hg|svn|bzr)\+)?(?:https?|wss?)`),
  validate: (body) => !isPlaceholderUrlCredential(body),
  generic: true,
  contains: "@", // every match holds the @ ending the user info
  fingerprintOf: urlCredentialMaterial,
  examples: () => ({
    positive: [
      `const API = "https://apiuser:${password(1)}@api.acme-corp.io/v2";`,
      `"dep": "git+https://${randomChars(40, 2, "0123456789abcdef")}:x-oauth-basic@github.com/o/r.git"`,
      `[docs](https://deploy:${password(3)}@files.acme-corp.io/path)`,
      `https://admin:${"hun" + "ter2"}@grafana.acme-corp.io/d/abc`, // a common word with a real host (pieces, so this file scans clean)
    ],
    negative: [
      "https://user:pass@example.com", // placeholder password
      "https://${username}:${password}@api.example.com/v1", // template variables
      "https://{{user}}:{{pass}}@config.example.com", // template variables
      "https://YOUR_USERNAME:YOUR_PASSWORD@api.service.com", // placeholder words
      `https://deploy:${password(4)}@files.example.org/path`, // documentation host
      "http://localhost:8080/path@v2", // no user info: a port and a path
    ],
  }),
};
export default rule;
