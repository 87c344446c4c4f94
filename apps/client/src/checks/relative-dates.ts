/**
 * Relative dates in team memory ("yesterday", "last Thursday", "next sprint", "3 days ago"): a
 * teammate (or an agent) reads the file on another day, when the phrase points elsewhere. Found
 * line by line in prose: code blocks (as `readMarkdown` finds them) and inline code are skipped.
 */

const WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
const PERIODS = "week|weekend|month|year|quarter|sprint|iteration|release|cycle";
const COUNT = "\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|couple of|few|several";
const UNITS = "minute|hour|day|week|month|year|sprint";

/** Every phrase flagged; whole words only, case-insensitive. */
const RELATIVE_DATE = new RegExp(
  "(?<![A-Za-z0-9_-])(?:" +
    [
      "the day before yesterday",
      "the day after tomorrow",
      "yesterday",
      "today",
      "tonight",
      "tomorrow",
      `(?:last|next|this|coming|past|previous|upcoming)\\s+(?:${WEEKDAYS}|${PERIODS})`,
      `(?:${COUNT})\\s+(?:${UNITS})s?\\s+ago`,
      `in\\s+(?:${COUNT})\\s+(?:${UNITS})s?`,
    ].join("|") +
    ")(?![A-Za-z0-9_-])",
  "gi",
);

export interface RelativeDate {
  /** 1-based line. */
  readonly line: number;
  /** The phrase as written. */
  readonly phrase: string;
}

/** Relative-date phrases of `text` outside code, in order (lines in `codeLines` are skipped). */
export function findRelativeDates(text: string, codeLines: ReadonlySet<number>): RelativeDate[] {
  const found: RelativeDate[] = [];
  text.split(/\r\n|\n|\r/).forEach((line, i) => {
    if (codeLines.has(i + 1)) return;
    const prose = line.replace(/(`+)[\s\S]*?\1/g, (m) => " ".repeat(m.length)); // inline code
    for (const m of prose.matchAll(RELATIVE_DATE)) found.push({ line: i + 1, phrase: m[0].replace(/\s+/g, " ") });
  });
  return found;
}
