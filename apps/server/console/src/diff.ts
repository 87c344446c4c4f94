/**
 * Side-by-side view of a unified diff (the server's GET .../diff): each hunk's removed lines are
 * paired with the added lines that follow them, context lines sit on both sides.
 */
import { h } from "./dom.js";

export interface Side {
  no: number;
  text: string;
  kind: "ctx" | "del" | "add";
}
export type DiffRow = { hunk: string } | { left: Side | null; right: Side | null };

/** Rows of a side-by-side diff from unified diff text (file headers skipped). */
export function sideBySide(unified: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let dels: Side[] = [];
  let adds: Side[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    dels = [];
    adds = [];
  };
  let inHunk = false;
  for (const line of unified.split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      flush();
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      rows.push({ hunk: line });
      inHunk = true;
      continue;
    }
    if (!inHunk) continue; // Index, ===, --- and +++ header lines
    if (line.startsWith("-")) dels.push({ no: oldNo++, text: line.slice(1), kind: "del" });
    else if (line.startsWith("+")) adds.push({ no: newNo++, text: line.slice(1), kind: "add" });
    else if (line.startsWith(" ")) {
      flush();
      rows.push({ left: { no: oldNo++, text: line.slice(1), kind: "ctx" }, right: { no: newNo++, text: line.slice(1), kind: "ctx" } });
    }
    // "\ No newline at end of file" and the trailing empty line are not shown
  }
  flush();
  return rows;
}

const mark = { ctx: "", del: "removed: ", add: "added: " };

function cells(side: Side | null): HTMLTableCellElement[] {
  if (!side) return [h("td", { class: "no" }), h("td")];
  return [
    h("td", { class: "no" }, String(side.no)),
    h("td", { class: side.kind === "ctx" ? "" : side.kind }, h("span", { class: "visually-hidden" }, mark[side.kind]), side.text),
  ];
}

/** A table showing `from` on the left and `to` on the right. */
export function diffTable(unified: string, from: string, to: string): HTMLElement {
  const rows = sideBySide(unified);
  const body = h("tbody");
  if (rows.every((r) => "hunk" in r)) body.append(h("tr", {}, h("td", { attrs: { colspan: 4 }, class: "muted" }, "The two versions have the same content.")));
  for (const r of rows) {
    if ("hunk" in r) body.append(h("tr", { class: "hunk" }, h("td", { attrs: { colspan: 4 } }, r.hunk)));
    else body.append(h("tr", {}, ...cells(r.left), ...cells(r.right)));
  }
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "diff" },
      h("caption", {}, `${from} (left) and ${to} (right)`),
      h("colgroup", {}, h("col", { class: "no" }), h("col"), h("col", { class: "no" }), h("col")),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { attrs: { scope: "col" } }, "Line"), h("th", { attrs: { scope: "col" } }, from), h("th", { attrs: { scope: "col" } }, "Line"), h("th", { attrs: { scope: "col" } }, to)),
      ),
      body,
    ),
  );
}
