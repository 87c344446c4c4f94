/**
 * Offset → 1-based line and column (UTF-16 code units) in a text, for many lookups.
 * Lines end at LF, CRLF or a lone CR (classic Mac OS), so the three give the same line numbers.
 * Built lazily: the newline table is only computed when a first lookup happens, in one O(n) pass
 * (native `indexOf` when the text has no CR); each lookup is then O(log lines).
 */
export class LineIndex {
  private starts: number[] | undefined;
  constructor(private readonly text: string) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    const text = this.text;
    if (text.indexOf("\r") === -1) {
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    } else {
      const ends = /\r\n?|\n/g;
      for (let m = ends.exec(text); m !== null; m = ends.exec(text)) starts.push(m.index + m[0].length);
    }
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

  /** Offset of the first code unit of the 0-based line `line` (0 ≤ line < number of lines). */
  startOf(line: number): number {
    return this.lineStarts()[line]!;
  }

  /** `{ line, column }`, both 1-based, of `offset`. */
  position(offset: number): { line: number; column: number } {
    const line = this.lineOf(offset);
    return { line: line + 1, column: offset - this.lineStarts()[line]! + 1 };
  }
}
