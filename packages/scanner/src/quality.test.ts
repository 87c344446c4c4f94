/** Issue 10, "Measured": the quality report's goal holds (recall >= 99 %, 0 false positives on near misses). */
import { describe, expect, it } from "vitest";
import { qualityReport } from "./quality.js";
import { RULES } from "./rules/index.js";

describe("quality report over the generated labelled corpus", () => {
  const report = qualityReport(RULES);

  it("finds at least 99 % of the positives (every rule's examples, bare and in 24 contexts)", () => {
    const missed = report.rules.filter((r) => r.found < r.positives).map((r) => `${r.ruleId}: ${r.positives - r.found} missed`);
    expect(report.recall, missed.join("; ")).toBeGreaterThanOrEqual(0.99);
  });

  it("reports none of the near misses (every rule's negative examples, bare and in 21 contexts)", () => {
    const fp = report.rules.filter((r) => r.falsePositives > 0).map((r) => `${r.ruleId}: ${r.falsePositives}`);
    expect(fp).toEqual([]);
  });

  it("covers every rule with positives and near misses", () => {
    expect(report.rules.filter((r) => r.positives === 0 || r.nearMisses === 0).map((r) => r.ruleId)).toEqual([]);
    expect(report.positives).toBeGreaterThan(RULES.length * 2 * 20);
  });
});
