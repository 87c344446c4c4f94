/**
 * Linear-time guarantee, measured: adversarial inputs must scan within a small multiple of the time
 * of ordinary text of the same size, in the same test run (so machine speed cancels out).
 * Each timing is the best of a few runs after a warm-up, to damp noise on a shared 2-core machine.
 */
import { describe, expect, it } from "vitest";
import { prng } from "./fakes.js";
import { RULES } from "./rules/index.js";
import { scan } from "./scan.js";

const SIZE = 4 * 1024 * 1024;
const FACTOR = 10;

const WORDS = (
  "the of and to in is you that it for on with as are this be at have from or by not but what all were when we " +
  "there can an your which their said if do will each about how up out them then she many some so these would other " +
  "into has more her two like him see time could no make than first been its who now people my made over did down " +
  "only way find use may water long little very after words called just where most know config token server client"
).split(" ");

/** Markdown-like prose with headings, inline code, links and code blocks (deterministic). */
function ordinaryText(size: number): string {
  const next = prng(11);
  const parts: string[] = [];
  let len = 0;
  while (len < size) {
    const r = next();
    const w = WORDS[Math.floor(next() * WORDS.length)]!;
    const piece =
      r < 0.02 ? `\n## ${w} section\n\n` : r < 0.05 ? ` [${w}](https://example.com/${w}/docs) ` : r < 0.08 ? ` \`${w}_value()\` ` : r < 0.1 ? `.\n` : `${w} `;
    parts.push(piece);
    len += piece.length;
  }
  return parts.join("").slice(0, size);
}

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

function bestTime(text: string, runs = 3): number {
  let best = Infinity;
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    scan(text);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

describe("scan time is linear for any input (full catalog)", () => {
  const prefixes = [...new Set(RULES.flatMap((r) => r.prefixes))];
  const ordinary = ordinaryText(SIZE);
  scan(ordinary); // warm-up (JIT, compiled catalog)
  const base = bestTime(ordinary);
  const blockSize = Math.floor(SIZE / prefixes.length);

  const cases: [string, string][] = [
    ["one prefix repeated (ghp_ghp_...)", repeatTo("ghp_", SIZE)],
    ["every catalog prefix repeated, block by block", prefixes.map((p) => repeatTo(p, blockSize)).join("\n").slice(0, SIZE)],
    ["every catalog prefix followed by a run of token characters without terminator", prefixes.map((p) => p + repeatTo("aB3xZ9", blockSize - p.length)).join("\n").slice(0, SIZE)],
    ["one 4 MB line of ordinary text (no newline)", ordinary.replace(/\n/g, " ")],
    ["a run of token characters without terminator", "ghp_" + repeatTo("aB3xZ9", SIZE - 4)],
    ["zero-width characters and CRLF everywhere", repeatTo("ghp_\u200Bab\r\n", SIZE)],
  ];

  it.each(cases)(`%s stays within ${FACTOR}x of ordinary text`, (_name, text) => {
    scan(text.slice(0, 65536)); // warm this input's paths
    const t = bestTime(text);
    expect(t / base, `adversarial ${t.toFixed(1)} ms vs ordinary ${base.toFixed(1)} ms`).toBeLessThan(FACTOR);
  });
});
