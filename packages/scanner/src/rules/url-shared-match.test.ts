/**
 * Issue 10, the URL rules' cost: the three URL rules share one match of `://user:password@host`
 * per occurrence (engine/compile.ts `SharedTail`), refuse an occurrence with no `@` within reach
 * before any regex runs (`Rule.contains`), and the any-scheme rule yields to the database and HTTP
 * ones by `yieldsTo`, not by catalog order. Each of these must leave the findings as they were.
 * Passwords are built from pieces at run time (fakes.ts), so this file scans clean.
 */
import { describe, expect, it } from "vitest";
import { randomChars } from "../fakes.js";
import { HitMemo } from "../engine/match.js";
import type { Rule } from "../rule.js";
import { scan } from "../scan.js";
import { RULES } from "./index.js";

const URL_RULES = ["database-url-credentials", "http-url-credentials", "url-credentials"].map((id) => RULES.find((r) => r.id === id)!);
const pw = randomChars(9, 77) + "4";
/** `[ruleId, reported text]` of each finding of `text` with `rules`. */
const found = (text: string, rules: readonly Rule[]) => scan(text, { rules }).map((f) => [f.ruleId, text.slice(f.offset!, f.endOffset!)]);

describe("precedence of the URL rules (yieldsTo)", () => {
  const cases = [
    [`DATABASE_URL=postgres://app:${pw}@db.acme-corp.io/app`, "database-url-credentials"],
    [`jdbc:mysql://app:${pw}@10.0.0.5:3306/shop`, "database-url-credentials"],
    [`https://ci:${pw}@git.acme-corp.io/o/r.git`, "http-url-credentials"],
    [`git+https://ci:${pw}@git.acme-corp.io/o/r.git`, "http-url-credentials"],
    [`ftp://ci:${pw}@ftp.acme-corp.io/`, "url-credentials"],
    [`x.postgres://app:${pw}@db.acme-corp.io/app`, "url-credentials"], // a dotted scheme: not postgres
  ] as const;
  // Every order of the three rules: the any-scheme rule first is what the catalog order alone got wrong.
  const orders = [
    [0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0],
  ].map((o) => o.map((i) => URL_RULES[i]!));
  it.each(cases)("%s is reported by %s whatever the order of the rules", (text, ruleId) => {
    for (const rules of orders) expect(found(text, rules).map(([id]) => id), rules.map((r) => r.id).join(",")).toEqual([ruleId]);
    expect(found(text, [...RULES].reverse()).map(([id]) => id)).toEqual([ruleId]);
  });
});

describe("shared match and the @ pre-check leave the URL findings unchanged", () => {
  // The reference: the same rules in catalog order (which gave the precedence before yieldsTo),
  // without `contains` and each pattern's rest made distinct by i + 1 empty groups, so that nothing
  // is shared and nothing refused early.
  const plain: Rule[] = URL_RULES.map((r, i) => ({ ...r, contains: undefined, yieldsTo: undefined, pattern: new RegExp(r.pattern.source + "(?:)".repeat(i + 1), r.pattern.flags) }));
  const spans = (text: string, rules: readonly Rule[]) => scan(text, { rules }).map((f) => [f.ruleId, f.offset, f.endOffset]);
  let seed = 12345;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const pick = (xs: readonly string[]): string => xs[next(xs.length)]!;
  const schemes = ["postgres", "https", "ftp", "x.postgres", "git+https", "jdbc:mysql", "9p", "", "myapp+tls", "Postgres"];
  const users = ["app", "", "a@b.io", "user", "x-access-token", "ci"];
  const passwords = [pw, "password", "p@ss" + pw, "pa#ss/" + pw, "${X}", "abc", "8080", pw + "@" + pw, ""];
  const hosts = ["db.acme-corp.io", "localhost", "example.com", "10.0.0.5:5432", "", "h:1@x"];
  const joins = ["://", "://", "://", ":/", "//"];
  const seps = [":", ":", ":", "", "::", "@"];
  const ats = ["@", "@", "@", "", "@@", " @", "/@"];
  const around = ["", "", " ", "\n", "'", "URL=", "://", "@", "/path?q=1#f", "%40", ":"];
  // A URL each, most of them complete, with a piece missing, doubled or out of place in many.
  const url = () => pick(around) + pick(schemes) + pick(joins) + pick(users) + pick(seps) + pick(passwords) + pick(ats) + pick(hosts) + pick(around);
  const texts = Array.from({ length: 3000 }, () => Array.from({ length: 1 + next(3) }, url).join(pick(["", " ", "\n"])));
  // Far `@`: the first `@` after a `://` beyond the pattern's longest match, and just within it.
  for (const gap of [200, 380, 390, 1100, 1200]) texts.push(`postgres://app:${"p".repeat(gap)}@db.acme-corp.io/ ftp://a:${pw}x${" ".repeat(gap)}@h.acme-corp.io`);

  it("reports what the rules reported matched one by one, without contains (3 000 random URL-like texts)", () => {
    let reported = 0;
    for (const text of texts) {
      const actual = spans(text, URL_RULES);
      expect(actual, text).toEqual(spans(text, plain));
      reported += actual.length;
    }
    expect(reported).toBeGreaterThan(100);
  });
});

describe("HitMemo", () => {
  it("finds a literal within reach for hits in any order, reading forward once for hits in order", () => {
    const text = "a@bc@" + "x".repeat(20) + "@";
    const memo = new HitMemo();
    const answer = (at: number, within: number) => {
      const next = text.indexOf("@", at);
      return next !== -1 && next + 1 - at <= within;
    };
    const queries = [0, 1, 2, 3, 5, 6, 25, 26, 4, 0, 24, 2, 26, 1];
    for (const within of [1, 2, 3, 21, 100]) for (const at of queries) expect(memo.holds(text, "@", at, within), `${at} ${within}`).toBe(answer(at, within));
  });
});
