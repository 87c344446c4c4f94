/**
 * Offset → 1-based line and column (UTF-16 code units) in a text, for many lookups.
 * Lines end at `\n` (a CR before it belongs to the line ending, so CRLF and LF give the same line
 * numbers). Built lazily: the newline table is only computed when a first lookup happens, in one
 * O(n) pass of native `indexOf`; each lookup is then O(log lines).
 */
export class LineIndex {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    for (let i = this.text.indexOf("\n"); i !== -1; i = this.text.indexOf("\n", i + 1)) starts.push(i + 1);
    return (this.starts = starts);
  }

  /** 0-based line number of `offset` (0 ≤ offset ≤ text.length). */
  lineOf(offset: number): number {
    const starts = this.lineStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** `{ line, column }`, both 1-based, of `offset`. */
  position(offset: number): { line: number; column: number } {
    const line = this.lineOf(offset);
    return { line: line + 1, column: offset - this.lineStarts()[line]! + 1 };
  }
}
