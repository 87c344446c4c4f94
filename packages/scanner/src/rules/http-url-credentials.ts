import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlaceholderCredential } from "../rule-helpers/url-credentials.js";

/**
 * Basic-auth credentials in an HTTP(S) or WebSocket URL: `https://user:password@host`, including
 * `git+https://<token>:x-oauth-basic@github.com/…` dependency URLs. The prefilter literal is `://`;
 * a lookbehind checks the scheme. Placeholders are not reported (see `isPlaceholderCredential`).
 * Format: RFC 3986 §3.2.1 (userinfo, deprecated "user:password" form) and RFC 7617 (Basic auth);
 * secretlint rule `@secretlint/secretlint-rule-basicauth`; also covers gitleaks
 * `sidekiq-sensitive-url`.
 */
const password = (seed: number): string => `${randomChars(12, seed)}${randomChars(3, seed + 1, "0123456789")}`;

const rule: Rule = {
  id: "http-url-credentials",
  label: "HTTP URL with user name and password",
  prefixes: ["://"],
  pattern:
    /(?<=(?<lead>(?:git\+)?(?:https?|wss?))):\/\/(?<secret>[^\s:@/?#'"<>\\]{0,128}:[^\s/?#'"<>\\]{1,256})@(?=[A-Za-z0-9_[.%{$-])/y,
  validate: (value) => !isPlaceholderCredential(value),
  examples: () => ({
    positive: [
      `const API = "https://apiuser:${password(1)}@api.example.com/v2";`,
      `"dep": "git+https://${randomChars(40, 2, "0123456789abcdef")}:x-oauth-basic@github.com/o/r.git"`,
      `[docs](https://deploy:${password(3)}@files.example.org/path)`,
    ],
    negative: [
      "https://user:pass@example.com", // placeholder password
      "https://${username}:${password}@api.example.com/v1", // template variables
      "https://{{user}}:{{pass}}@config.example.com", // template variables
      "https://YOUR_USERNAME:YOUR_PASSWORD@api.service.com", // placeholder words
      "http://localhost:8080/path@v2", // no user info: a port and a path
    ],
  }),
};
export default rule;
