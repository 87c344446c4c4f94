import { describe, expect, it } from "vitest";
import { RULES } from "../rules/index.js";
import { compileRules, numberGroups, splitLeadingLookbehind } from "./compile.js";
import { normalizeRun } from "./normalize.js";

describe("numberGroups", () => {
  it("writes named groups as numbered ones and keeps escapes, classes and lookarounds", () => {
    expect(numberGroups(String.raw`(?<=(?<lead>a|\(b))x[(?<no>)](?<body>(c)(?<secret>d))\)(?:e)(?<!f)`)).toEqual({
      source: String.raw`(?<=(a|\(b))x[(?<no>)]((c)(d))\)(?:e)(?<!f)`,
      numbers: new Map([["lead", 1], ["body", 2], ["secret", 4]]),
    });
    expect(numberGroups(String.raw`(?<q>['"])x\k<q>`)).toBeUndefined();
  });

  it("gives every catalog rule's pre-check the named groups' values", () => {
    const catalog = compileRules(RULES);
    let checked = 0;
    for (const cr of catalog.rules) {
      if (cr.preCheck === undefined) continue;
      expect(cr.preCheckSecret, cr.rule.id).toBeGreaterThan(0);
      const named = new RegExp(cr.rule.pattern.source, cr.rule.pattern.flags.replace(/[gyd]/g, ""));
      const unanchored = new RegExp(cr.preCheck.source, cr.preCheck.flags.replace("y", ""));
      for (const text of cr.rule.examples().positive) {
        const a = named.exec(text);
        const b = unanchored.exec(text);
        expect(b?.[0], cr.rule.id).toBe(a?.[0]);
        if (a === null || b === null) continue;
        expect(b[cr.preCheckSecret], cr.rule.id).toBe(a.groups?.["secret"]);
        if (cr.hasBodyGroup) expect(b[cr.preCheckBody], cr.rule.id).toBe(a.groups?.["body"]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe("memoisation", () => {
  // Issue 12: rules.test, contexts.test and normalized.test scan with `{ rules: [rule] }`, a new
  // array per call; compiling it again each time was ~1.5 ms of a ~0.04 ms scan (contexts.test: 40 s).
  it("gives a new array of the same rules in the same order the same catalog, and another order its own", () => {
    const [a, b] = [RULES[0]!, RULES[1]!];
    expect(compileRules([a])).toBe(compileRules([a]));
    expect(compileRules([a, b])).toBe(compileRules([a, b]));
    expect(compileRules([b, a])).not.toBe(compileRules([a, b]));
    expect(compileRules([b, a]).rules.map((cr) => cr.rule.id)).toEqual([b.id, a.id]);
    expect(compileRules([a])).not.toBe(compileRules([a, b]));
    expect(compileRules([...RULES])).toBe(compileRules(RULES));
  });

  it("compiles again a rule list that threw, and throws again", () => {
    const noPrefix = { ...RULES[0]!, prefixes: [] };
    expect(() => compileRules([noPrefix])).toThrow(TypeError);
    expect(() => compileRules([noPrefix])).toThrow(`rule ${noPrefix.id}: no prefixes`);
  });
});

describe("shared tails", () => {
  it("splits a pattern after its leading lookbehind, past escapes and classes", () => {
    expect(splitLeadingLookbehind(String.raw`(?<=(?<lead>[)(]\)x)):\/\/(?<secret>a)`)).toEqual([String.raw`(?<=(?<lead>[)(]\)x))`, String.raw`:\/\/(?<secret>a)`]);
    expect(splitLeadingLookbehind("(?<=a)")).toBeUndefined();
    expect(splitLeadingLookbehind("a(?<=b)c")).toBeUndefined();
  });

  it("gives the three URL rules one shared tail and no other catalog rule one", () => {
    const shared = compileRules(RULES).rules.filter((cr) => cr.tail !== undefined);
    expect(shared.map((cr) => cr.rule.id)).toEqual(["database-url-credentials", "http-url-credentials", "url-credentials"]);
    expect(new Set(shared.map((cr) => cr.tail))).toHaveProperty("size", 1);
    // A rule alone shares nothing.
    expect(compileRules([shared[0]!.rule]).rules[0]!.tail).toBeUndefined();
  });
});

describe("wordCheck (the scan's local normalisation test, scan.ts)", () => {
  const catalog = compileRules(RULES);
  /** Does the word, normalised, tell the scan to search the whole text normalised as well? */
  const splits = (word: string): boolean => {
    const units = new Uint16Array(word.length);
    const run = normalizeRun(word, 0, word.length, units);
    return run.lastRemoval > 0 && catalog.wordCheck().splits(units, run.length, run.lastRemoval, run.lastUrlRemoval);
  };

  /** A JSON string holding an https URL with user `app` and `password` (JSON-escaped slashes), built from pieces. */
  const jsonUrl = (password: string): string => ["\"https:", String.raw`\/\/`, "app", ":", password, "@db.acme.io", String.raw`\/x"`].join("");

  it("needs no normalised search for a JSON URL with an @ whose only escapes are the JSON ones the URL rules read (issue 10)", () => {
    // Before: every JSON file holding such a word was searched twice (~2x on the file).
    expect(splits(String.raw`{"avatar":"https:\/\/cdn.acme.io\/u\/me@acme.io\/x.png"}`)).toBe(false);
    expect(splits(jsonUrl(String.raw`p\"w\'x\\y`))).toBe(false);
  });

  it("still needs it when the URL word holds another removal, or a token prefix before a JSON escape", () => {
    expect(splits(jsonUrl(String.raw`p\_w`))).toBe(true);
    expect(splits(jsonUrl("p\u00ADw"))).toBe(true);
    expect(splits(String.raw`"ghp_abc\/def"`)).toBe(true);
  });
});
