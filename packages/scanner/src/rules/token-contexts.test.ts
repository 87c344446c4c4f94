/**
 * Issue 10, a new user's try-out (findings M1, M3, M7, P1): every rule's token, cut out of its
 * positive examples, is found by the whole catalog, with the same rule and fingerprint, at the
 * token, when an escape sequence sits right before it (percent, JSON `\u`, `\x`, HTML character
 * references, JSON in a query string), after a form-encoded space (`Bearer+…`), after a path
 * segment's `/`, and after a diff line's `-` or a JSON `\n`. (contexts.test.ts wraps whole
 * examples, scanned one rule at a time; here the bare token meets the context.)
 */
import { describe, expect, it } from "vitest";
import { scan } from "../scan.js";
import { RULES } from "./index.js";

interface Token {
  readonly rule: string;
  readonly value: string;
  readonly fingerprint: string;
}

/** The single-line tokens of the positive examples that the whole catalog finds bare, whole, by their rule. */
function tokens(): Token[] {
  const out: Token[] = [];
  for (const rule of RULES) {
    for (const example of rule.examples().positive) {
      const found = scan(example, { rules: [rule] });
      if (found.length !== 1) continue;
      const value = example.slice(found[0]!.offset, found[0]!.endOffset);
      if (value.includes("\n")) continue;
      const bare = scan(value).find((f) => f.ruleId === rule.id && f.offset === 0 && f.endOffset === value.length);
      if (bare) out.push({ rule: rule.id, value, fingerprint: bare.fingerprint });
    }
  }
  return out;
}

/**
 * Contexts as [name, text before, text after, rules left out with the reason]. The token starts
 * right after the text before; `encode` (when set) is applied to the token and what follows.
 */
const CONTEXTS: readonly { name: string; pre: string; post: string; encode?: (s: string) => string; skip?: Record<string, string> }[] = [
  { name: "%3A before", pre: "?cred=me%3A", post: "&x=1" },
  { name: "%20 after an encoded header", pre: "?h=Authorization%3A%20Bearer%20", post: "" },
  { name: "JSON \\u003c…\\u003e (Go's encoding/json)", pre: '{"msg":"use \\u003c', post: '\\u003e"}' },
  { name: "JSON \\u0022…\\u0022", pre: "\\u0022", post: "\\u0022" },
  { name: "\\x3c…\\x3e", pre: '"\\x3c', post: '\\x3e"' },
  { name: "&#60;…&#62;", pre: "<p>&#60;", post: "&#62;</p>" },
  { name: "&lt;…&gt;", pre: "<p>&lt;", post: "&gt;</p>" },
  {
    name: "JSON in a query string",
    pre: "https://app.internal/cb?state=" + encodeURIComponent('{"token":"'),
    post: encodeURIComponent('"}'),
    encode: encodeURIComponent,
    skip: {
      "twitter-bearer-token": "its alphabet holds %: the escape after it is part of the token",
    },
  },
  { name: "a form-encoded space (Bearer+)", pre: "authorization=Bearer+", post: "&x=1" },
  { name: "form-encoded words (my+key+)", pre: "?q=my+key+", post: "" },
  {
    name: "a URL path segment",
    pre: "https://vault.internal/ui/",
    post: " now",
    skip: {
      "pkcs-unarmored-private-key": "a base64 DER body: / is in its alphabet and the rule has a lead, so a / before it continues a longer base64 run",
    },
  },
  { name: "a diff line's -", pre: "-", post: "\n" },
  { name: "a JSON \\n", pre: '"a\\n', post: '"' },
];

describe("every rule's token right after", () => {
  const all = tokens();
  it("the tokens cover every rule with a single-line token (at least 150 rules)", () => {
    expect(new Set(all.map((t) => t.rule)).size).toBeGreaterThanOrEqual(150);
  });
  it.each(CONTEXTS.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const missed: string[] = [];
    let tried = 0;
    for (const t of all) {
      if (c.skip?.[t.rule] !== undefined) continue;
      tried++;
      const body = c.encode ? c.encode(t.value) : t.value;
      const text = c.pre + body + c.post;
      const f = scan(text).find((x) => x.ruleId === t.rule && x.fingerprint === t.fingerprint);
      if (f === undefined) missed.push(`${t.rule}: missed`);
      else if (f.offset !== c.pre.length) missed.push(`${t.rule}: at ${f.offset}, not ${c.pre.length}`);
    }
    expect(tried).toBeGreaterThan(300);
    expect(missed).toEqual([]);
  });
});
