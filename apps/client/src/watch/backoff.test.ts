import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "./backoff.js";

describe("backoffDelayMs", () => {
  it("doubles the window from the base up to the cap, scaled by the random draw (full jitter)", () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 6, 7, 50, 5000].map((n) => backoffDelayMs(n, { baseMs: 500, capMs: 30_000 }, top))).toEqual([
      499, 999, 1999, 3999, 29_999, 29_999, 29_999, 29_999,
    ]);
    expect(backoffDelayMs(3, {}, () => 0)).toBe(0);
    expect(backoffDelayMs(1, {}, () => 0.5)).toBe(500);
  });

  it("spreads clients dropped together over the window instead of one instant", () => {
    const delays = Array.from({ length: 1000 }, () => backoffDelayMs(4));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(8000);
    expect(new Set(delays.map((d) => Math.floor(d / 1000))).size).toBe(8); // every second of the window is used
  });
});
