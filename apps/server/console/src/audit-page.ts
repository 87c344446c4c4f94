/**
 * Audit log: filters (the API's AuditFilter), a table of events newest first with "load older",
 * one event's every field, the summary of the same filter as charts by day and by rule, and an
 * export of the matching events (CSV or JSON Lines, fetched with the token, saved from a blob URL).
 */
import { AUDIT_EVENT_KINDS_LIST, type AuditEventT, type AuditEventListT, type AuditSummaryT } from "./types.js";
import type { Query } from "./api.js";
import { columnChart, rowChart } from "./chart.js";
import { field, h, replace, row, select, table, time } from "./dom.js";
import type { Page } from "./page.js";

const FILTER_TEXT = [
  ["user", "User (actor or target)"],
  ["namespace", "Namespace"],
  ["ruleId", "Rule id"],
  ["pathPrefix", "Path prefix"],
  ["fingerprint", "Fingerprint"],
] as const;

/** An ISO 8601 time (UTC) from a datetime-local value (the browser's zone), or undefined. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function rules(e: AuditEventT): string {
  return [...new Set((e.findings ?? []).map((f) => f.ruleId))].join(", ");
}
function lines(e: AuditEventT): string {
  return (e.findings ?? []).map((f) => (f.column ? `${f.line}:${f.column}` : String(f.line))).join(", ");
}
function who(e: AuditEventT): string {
  return e.targetUser && e.targetUser !== e.actor ? `${e.actor ?? ""} → ${e.targetUser}` : (e.actor ?? "");
}

/** Every non-null field of one event. */
function detail(e: AuditEventT): HTMLElement {
  const list = h("dl", { class: "fields" });
  for (const [key, value] of Object.entries(e)) {
    if (value === null || key === "findings") continue;
    list.append(h("dt", {}, key), h("dd", {}, key.endsWith("At") || key === "createdAt" ? time(String(value)) : String(value)));
  }
  const findings = (e.findings ?? []).map((f) =>
    h("li", {}, `${f.ruleId}${f.label ? ` (${f.label})` : ""} at line ${f.line}${f.column ? `, column ${f.column}` : ""}`, f.fingerprint ? h("div", { class: "mono muted" }, `fingerprint ${f.fingerprint}`) : null),
  );
  return h(
    "div",
    {},
    h("h3", { attrs: { id: "audit-detail-title", tabindex: -1 } }, `Event ${e.id}: ${e.kind}`),
    list,
    findings.length ? h("div", {}, h("h4", {}, "Findings"), h("ul", {}, ...findings)) : null,
  );
}

export const auditPage: Page = async (ctx, root) => {
  const inputs = {
    from: h("input", { attrs: { type: "datetime-local", name: "from" } }),
    to: h("input", { attrs: { type: "datetime-local", name: "to" } }),
    kind: select("kind", [["", "any kind"], ...AUDIT_EVENT_KINDS_LIST.map((k) => [k, k] as const)]),
    text: Object.fromEntries(FILTER_TEXT.map(([name]) => [name, h("input", { attrs: { type: "text", name, autocomplete: "off", spellcheck: "false" } })])),
  };
  const summaryBox = h("div", { class: "grid-2" });
  const totalLine = h("p", { class: "muted" });
  const listBox = h("div");
  const moreBox = h("div", { class: "actions" });
  const detailBox = h("div", { class: "card", attrs: { hidden: true, "aria-live": "polite" } });
  let events: AuditEventT[] = [];
  let selected: number | null = null;

  const filter = (): Query => {
    const q: Query = { from: isoOf(inputs.from.value), to: isoOf(inputs.to.value), kind: inputs.kind.value || undefined };
    for (const [name, input] of Object.entries(inputs.text)) q[name] = input.value.trim() || undefined;
    return q;
  };

  const openDetail = async (id: number) => {
    try {
      const event = await ctx.api.get<AuditEventT>(`/v1/admin/audit-events/${id}`);
      selected = id;
      replace(detailBox, detail(event));
      detailBox.hidden = false;
      renderTable();
      detailBox.querySelector<HTMLElement>("h3")?.focus();
    } catch (err) {
      ctx.fail(err);
    }
  };

  const renderTable = () => {
    const rows = events.map((e) => {
      const tr = row(
        h("button", { class: "linklike", attrs: { type: "button", "aria-label": `Show event ${e.id}` }, on: { click: () => void openDetail(e.id) } }, `#${e.id}`),
        time(e.createdAt),
        e.kind,
        who(e),
        e.namespace ?? "",
        e.path ?? "",
        rules(e),
        lines(e),
        e.code ?? "",
      );
      if (e.id === selected) tr.classList.add("selected");
      return tr;
    });
    replace(listBox, table("Audit events, newest first", ["Event", "Time", "Kind", "User", "Namespace", "Path", "Rule", "Line", "Code"], rows, "No event matches."));
  };

  const load = async (before?: number) => {
    const q = filter();
    const page = await ctx.api.get<AuditEventListT>("/v1/admin/audit-events", { ...q, limit: 50, before });
    events = before ? [...events, ...page.events] : page.events;
    renderTable();
    replace(
      moreBox,
      page.nextBefore
        ? h("button", { attrs: { type: "button" }, on: { click: () => void load(page.nextBefore!).catch(ctx.fail) } }, "Load older events")
        : null,
    );
    if (!before) {
      const summary = await ctx.api.get<AuditSummaryT>("/v1/admin/audit-events/summary", q);
      totalLine.textContent = `${summary.total} matching event${summary.total === 1 ? "" : "s"}.`;
      replace(
        summaryBox,
        h("div", { class: "card" }, columnChart("Events by day (UTC)", summary.byDay.map((d) => ({ label: d.day, count: d.count })))),
        h("div", { class: "card" }, rowChart("Events by rule", summary.byRule.map((r) => ({ label: r.key, count: r.count })))),
      );
    }
  };

  const exportAs = async (format: "csv" | "jsonl") => {
    try {
      const blob = await ctx.api.download("/v1/admin/audit-events/export", { ...filter(), format });
      const href = URL.createObjectURL(blob);
      const link = h("a", { attrs: { href, download: `audit-events.${format}` } });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      ctx.status(`Exported the matching events as ${format === "csv" ? "CSV" : "JSON Lines"} (audit-events.${format}).`);
    } catch (err) {
      ctx.fail(err);
    }
  };

  const form = h(
    "form",
    {
      class: "card",
      attrs: { "aria-label": "Audit filters" },
      on: {
        submit: (event) => {
          event.preventDefault();
          ctx.clear();
          detailBox.hidden = true;
          selected = null;
          void load()
            .then(() => ctx.status(`Showing ${events.length} event${events.length === 1 ? "" : "s"}.`))
            .catch(ctx.fail);
        },
      },
    },
    h(
      "div",
      { class: "filters" },
      field("From", inputs.from),
      field("To", inputs.to),
      field("Kind", inputs.kind),
      ...FILTER_TEXT.map(([name, label]) => field(label, inputs.text[name]!)),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", attrs: { type: "submit" } }, "Apply filters"),
        h("button", { attrs: { type: "reset" } }, "Clear"),
        h("button", { attrs: { type: "button" }, on: { click: () => void exportAs("csv") } }, "Export CSV"),
        h("button", { attrs: { type: "button" }, on: { click: () => void exportAs("jsonl") } }, "Export JSON Lines"),
      ),
    ),
  );

  replace(
    root,
    h("h2", { attrs: { id: "audit-title", tabindex: -1 } }, "Audit log"),
    form,
    totalLine,
    summaryBox,
    detailBox,
    listBox,
    moreBox,
  );
  await load();
};
