/**
 * Issue 10, "Boundaries are derived, not hand-written per rule": every positive example of every
 * rule, wrapped in the contexts a token meets in notes, diffs, JSON and URLs, gives the same finding
 * (same rule, same start, same fingerprint) as the bare example.
 */
import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.js";
import { scan } from "../scan.js";
import { RULES } from "./index.js";
import { CONTEXTS, withNewlines } from "../quality.js";

/** The one finding of `text` under `rule`, as rule, start offset and fingerprint. */
function only(text: string, rule: Rule) {
  return scan(text, { rules: [rule] }).map((f) => ({ ruleId: f.ruleId, offset: f.offset!, fingerprint: f.fingerprint }));
}

// One test per rule (not per rule and context: 4,609 tests of ~0.1 ms each cost more in vitest's
// per-test overhead than in scans; issue 12). Every context is still checked, `expect.soft` goes on
// past a failure, and each failure names the rule, the context and the text.
describe("every rule keeps its finding in every context", () => {
  it.each(RULES.map((r) => [r.id, r] as const))("%s", (id, rule) => {
    for (const example of rule.examples().positive) {
      const bare = only(example, rule);
      expect(bare, `${id}: the bare example gives one finding`).toHaveLength(1);
      for (const context of CONTEXTS) {
        const { out, moved } = withNewlines(context.pre + example + context.post, context.newline ?? "\n");
        expect.soft(only(out, rule), `${id} in context "${context.name}": ${JSON.stringify(out.slice(0, 200))}`).toEqual([{ ...bare[0]!, offset: moved(context.pre.length + bare[0]!.offset) }]);
      }
    }
  });
});

describe("the contexts", () => {
  it("are at least 20, as issue 10 asks", () => expect(CONTEXTS.length).toBeGreaterThanOrEqual(20));
});
