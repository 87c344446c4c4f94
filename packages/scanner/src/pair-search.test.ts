/**
 * The pair rules' position-based search (pair-search.ts) against their reference regex
 * (key-pair.ts `pairPattern`, run by the engine when a rule has no `pair`): the same findings, at
 * the same offsets, on generated texts that put IDs, secrets, look-alike runs, newlines and long
 * lines in every order and distance.
 */
import { describe, expect, it } from "vitest";
import { prng, randomChars } from "./fakes.js";
import type { Rule } from "./rule.js";
import aws from "./rules/aws-secret-access-key.js";
import twilio from "./rules/twilio-api-key.js";
import { scan } from "./scan.js";

/** The rule without `pair`: the engine then tries its regex at every ID. */
function regexOnly(rule: Rule): Rule {
  const { pair: _pair, ...plain } = rule;
  return plain;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A text of `pieces` random pieces: IDs of both rules, secrets of both lengths, near misses, gaps, newlines. */
function generated(seed: number, pieces: number): string {
  const next = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const parts: string[] = [];
  for (let i = 0; i < pieces; i++) {
    const s = Math.floor(next() * 1e9);
    const kind = Math.floor(next() * 11);
    parts.push(
      [
        () => pick(["AKIA", "ASIA"]) + randomChars(16, s, BASE32),
        () => "SK" + randomChars(32, s, HEX),
        () => randomChars(40, s, B64),
        () => randomChars(32, s),
        () => randomChars(pick([20, 31, 33, 39, 41, 44]), s, B64),
        () => pick([" ", "=", ", ", '"', " = ", ":"]),
        () => "\n".repeat(1 + Math.floor(next() * 3)),
        () => " ".repeat(Math.floor(next() * 170)),
        () => "x ".repeat(Math.floor(next() * 90)),
        () => pick(["aws_secret_access_key = ", "TWILIO_API_SECRET=", "\r\n", "-", "/", "é"]),
        () => randomChars(40, s, "0123456789abcdef"),
      ][kind]!(),
    );
  }
  return parts.join("");
}

const offsets = (text: string, rules: readonly Rule[]) => scan(text, { rules }).map((f) => `${f.ruleId}@${f.offset}-${f.endOffset}`);

describe("pair search finds what the pair regex finds", () => {
  for (const rule of [aws, twilio]) {
    it(`${rule.id}: same findings on 400 generated texts`, () => {
      const plain = [regexOnly(rule)];
      let found = 0;
      for (let seed = 1; seed <= 400; seed++) {
        const text = generated(seed, 12 + (seed % 30));
        const expected = offsets(text, plain);
        found += expected.length;
        expect(offsets(text, [rule]), `seed ${seed}`).toEqual(expected);
      }
      expect(found, "the generated texts hold findings").toBeGreaterThan(20);
    });

    it(`${rule.id}: same findings on the rule's examples`, () => {
      const { positive, negative } = rule.examples();
      for (const text of [...positive, ...negative]) expect(offsets(text, [rule])).toEqual(offsets(text, [regexOnly(rule)]));
    });
  }
});
