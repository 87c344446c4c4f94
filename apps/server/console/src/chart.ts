/** Plain SVG bar charts (no library): counts by day (columns) and by key (rows). */
import { h, svg } from "./dom.js";

/** A column chart of `points` (oldest first), labelled for screen readers by `title`. */
export function columnChart(title: string, points: readonly { label: string; count: number }[]): HTMLElement {
  const width = 640;
  const height = 180;
  const pad = { top: 10, right: 10, bottom: 34, left: 36 };
  const max = Math.max(1, ...points.map((p) => p.count));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const step = points.length > 0 ? plotW / points.length : plotW;
  const bar = Math.max(2, Math.min(40, step * 0.7));
  const every = Math.max(1, Math.ceil(points.length / 8)); // at most ~8 date labels
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}: ${points.map((p) => `${p.label} ${p.count}`).join(", ") || "no events"}` },
    svg("line", { class: "axis", x1: pad.left, y1: pad.top + plotH, x2: width - pad.right, y2: pad.top + plotH }),
    svg("text", { x: pad.left - 6, y: pad.top + 10, "text-anchor": "end" }, String(max)),
    svg("text", { x: pad.left - 6, y: pad.top + plotH, "text-anchor": "end" }, "0"),
  );
  points.forEach((p, i) => {
    const hgt = (p.count / max) * plotH;
    const x = pad.left + i * step + (step - bar) / 2;
    chart.append(
      svg("rect", { class: "bar", x, y: pad.top + plotH - hgt, width: bar, height: Math.max(hgt, 1) }, svg("title", {}, `${p.label}: ${p.count}`)),
    );
    if (i % every === 0) chart.append(svg("text", { x: x + bar / 2, y: height - 12, "text-anchor": "middle" }, p.label.slice(5)));
  });
  return h("figure", { class: "chart" }, chart, h("figcaption", { class: "muted" }, title));
}

/** A horizontal bar chart of `items` (most first), at most `limit` rows. */
export function rowChart(title: string, items: readonly { label: string; count: number }[], limit = 10): HTMLElement {
  const shown = items.slice(0, limit);
  const width = 640;
  const rowH = 22;
  const labelW = 200;
  const height = Math.max(1, shown.length) * rowH + 8;
  const max = Math.max(1, ...shown.map((p) => p.count));
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${title}: ${shown.map((p) => `${p.label} ${p.count}`).join(", ") || "none"}`,
  });
  shown.forEach((p, i) => {
    const y = 4 + i * rowH;
    const w = (p.count / max) * (width - labelW - 50);
    chart.append(
      svg("text", { x: labelW - 8, y: y + 15, "text-anchor": "end" }, p.label.length > 30 ? `${p.label.slice(0, 29)}…` : p.label),
      svg("rect", { class: "bar", x: labelW, y: y + 3, width: Math.max(w, 1), height: rowH - 8 }, svg("title", {}, `${p.label}: ${p.count}`)),
      svg("text", { x: labelW + w + 6, y: y + 15 }, String(p.count)),
    );
  });
  if (shown.length === 0) chart.append(svg("text", { x: 8, y: 18 }, "none"));
  return h("figure", { class: "chart" }, chart, h("figcaption", { class: "muted" }, title));
}
