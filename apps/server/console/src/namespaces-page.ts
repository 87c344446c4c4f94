/**
 * Namespaces: the team's namespaces, one namespace's entries (heads, paginated), one entry's
 * history (versions newest first), a version's content, a side-by-side diff of two versions,
 * restoring a version as a new head, and purging a version's content (admin).
 */
import type { AppliedWriteResponse, DiffResponse, HeadsResponse, HistoryResponse, NamespaceListResponse, PurgeResponse, VersionInfo, VersionResponse } from "@teammem/protocol";
import { newOpId, nsPath } from "./api.js";
import { diffTable } from "./diff.js";
import { badge, field, h, replace, row, table, time, uid } from "./dom.js";
import type { Page, PageContext } from "./page.js";

function versionState(v: VersionInfo): HTMLElement | string {
  if (v.purged) return badge(`purged by ${v.purged.by}: ${v.purged.reason}`, "bad");
  if (v.deleted) return badge("deleted", "bad");
  return `${v.size} B`;
}

/** One entry's history with diff, view, restore and purge. */
async function historyView(ctx: PageContext, box: HTMLElement, ns: string, path: string): Promise<void> {
  const history = await ctx.api.get<HistoryResponse>(nsPath(ns, "/history"), { path });
  const versions = history.versions;
  const output = h("div", { attrs: { "aria-live": "polite" } });
  const group = uid("pick");
  const picks = new Map<number, { from: HTMLInputElement; to: HTMLInputElement }>();
  const reload = () => historyView(ctx, box, ns, path);

  const view = async (v: VersionInfo) => {
    try {
      const res = await ctx.api.get<VersionResponse>(nsPath(ns, "/version"), { path, version: v.version });
      replace(
        output,
        h("h4", { attrs: { tabindex: -1 } }, `Version ${v.version} of ${path}`),
        res.content === null ? h("p", { class: "muted" }, res.purged ? "Content purged." : "Deleted (tombstone).") : h("pre", { class: "content" }, res.content),
      );
      output.querySelector<HTMLElement>("h4")?.focus();
    } catch (err) {
      ctx.fail(err);
    }
  };

  const restore = async (v: VersionInfo) => {
    if (!window.confirm(`Restore version ${v.version} of ${path} as a new version?`)) return;
    try {
      const res = await ctx.api.send<AppliedWriteResponse>("POST", nsPath(ns, "/restore"), { opId: newOpId("console-restore"), path, version: v.version });
      await reload();
      ctx.status(`Restored version ${v.version} of ${path} as version ${res.version}.`);
    } catch (err) {
      ctx.fail(err);
    }
  };

  const purgeForm = (v: VersionInfo) => {
    const reason = h("input", { attrs: { type: "text", name: "reason", maxlength: 500, required: true, autocomplete: "off" } });
    const same = h("input", { attrs: { type: "checkbox", name: "sameContent" } });
    const sameId = uid("same");
    same.id = sameId;
    replace(
      output,
      h(
        "form",
        {
          class: "card",
          attrs: { "aria-label": `Purge version ${v.version}` },
          on: {
            submit: (event) => {
              event.preventDefault();
              if (!reason.value.trim()) {
                ctx.fail(new Error("Give a reason for the purge."));
                reason.focus();
                return;
              }
              void ctx.api
                .send<PurgeResponse>("POST", `/v1/admin/namespaces/${encodeURIComponent(ns)}/purge`, {
                  path,
                  version: v.version,
                  reason: reason.value.trim(),
                  sameContent: same.checked,
                })
                .then(async (res) => {
                  await reload();
                  ctx.status(`Purged version${res.versions.length === 1 ? "" : "s"} ${res.versions.join(", ")} of ${path}.`);
                })
                .catch(ctx.fail);
            },
          },
        },
        h("h4", {}, `Purge version ${v.version} of ${path}`),
        h("p", { class: "muted" }, "The content is removed for good from history, conflict records and stored results; history keeps a placeholder with your name and reason."),
        field("Reason", reason),
        h("label", { class: "check", attrs: { for: sameId } }, same, "Also every other version with the same content"),
        h("div", { class: "actions" }, h("button", { class: "danger", attrs: { type: "submit" } }, "Purge"), h("button", { attrs: { type: "button" }, on: { click: () => replace(output) } }, "Cancel")),
      ),
    );
    reason.focus();
  };

  const rows = versions.map((v, i) => {
    const from = h("input", { attrs: { type: "radio", name: `${group}-from`, value: v.version, "aria-label": `Compare from version ${v.version}` } });
    const to = h("input", { attrs: { type: "radio", name: `${group}-to`, value: v.version, "aria-label": `Compare to version ${v.version}` } });
    if (i === 0) to.checked = true;
    if (i === 1) from.checked = true;
    picks.set(v.version, { from, to });
    const live = !v.deleted && !v.purged;
    return row(
      h("div", { class: "actions" }, from, to),
      `v${v.version}`,
      v.kind,
      v.author,
      time(v.createdAt),
      versionState(v),
      h(
        "div",
        { class: "actions" },
        h("button", { attrs: { type: "button", "aria-label": `View version ${v.version}` }, on: { click: () => void view(v) } }, "View"),
        live && i > 0 ? h("button", { attrs: { type: "button", "aria-label": `Restore version ${v.version}` }, on: { click: () => void restore(v) } }, "Restore") : null,
        live ? h("button", { class: "danger", attrs: { type: "button", "aria-label": `Purge version ${v.version}` }, on: { click: () => purgeForm(v) } }, "Purge") : null,
      ),
    );
  });

  const compare = async () => {
    const pick = (side: "from" | "to") => [...picks.entries()].find(([, p]) => p[side].checked)?.[0];
    const from = pick("from");
    const to = pick("to");
    if (from === undefined || to === undefined) {
      ctx.fail(new Error("Choose a version in both the From and the To column."));
      return;
    }
    try {
      const res = await ctx.api.get<DiffResponse>(nsPath(ns, "/diff"), { path, from, to });
      replace(output, h("h4", { attrs: { tabindex: -1 } }, `Changes from version ${from} to version ${to}`), diffTable(res.diff, `version ${from}`, `version ${to}`));
      output.querySelector<HTMLElement>("h4")?.focus();
    } catch (err) {
      ctx.fail(err);
    }
  };

  const conflicts = history.conflicts.filter((c) => c.status === "open").length;
  replace(
    box,
    h("h3", { attrs: { id: "history-title", tabindex: -1 } }, `History of ${path}`),
    conflicts ? h("p", {}, badge(`${conflicts} open conflict record${conflicts === 1 ? "" : "s"}`, "pending")) : null,
    table(`Versions of ${path}, newest first (choose From and To to compare)`, ["From / To", "Version", "Kind", "Author", "Time", "Content", "Actions"], rows),
    h("div", { class: "actions" }, h("button", { class: "primary", attrs: { type: "button" }, on: { click: () => void compare() } }, "Compare selected versions")),
    output,
  );
}

/** One namespace's entries (heads, paginated by path). */
async function entriesView(ctx: PageContext, box: HTMLElement, historyBox: HTMLElement, ns: string): Promise<void> {
  const listBox = h("div");
  const more = h("div", { class: "actions" });
  const shown: HTMLTableRowElement[] = [];
  const open = (path: string) => {
    void historyView(ctx, historyBox, ns, path)
      .then(() => historyBox.querySelector<HTMLElement>("h3")?.focus())
      .catch(ctx.fail);
  };
  const load = async (after?: string) => {
    const page = await ctx.api.get<HeadsResponse>(nsPath(ns, "/heads"), { after, limit: 200 });
    for (const head of page.heads) {
      shown.push(
        row(
          h("button", { class: "linklike", attrs: { type: "button", "aria-label": `History of ${head.path}` }, on: { click: () => open(head.path) } }, head.path),
          `v${head.version}`,
          head.deleted ? badge("deleted", "bad") : badge("live", "ok"),
        ),
      );
    }
    replace(listBox, table(`Entries of ${ns}`, ["Path", "Head", "State"], shown, "No entry yet."));
    replace(more, page.nextAfter ? h("button", { attrs: { type: "button" }, on: { click: () => void load(page.nextAfter!).catch(ctx.fail) } }, "More entries") : null);
  };
  replace(box, h("h3", { attrs: { id: "entries-title", tabindex: -1 } }, `Entries of ${ns}`), listBox, more);
  historyBox.replaceChildren();
  await load();
}

export const namespacesPage: Page = async (ctx, root) => {
  const entriesBox = h("div", { class: "card" });
  const historyBox = h("div", { class: "card" });
  const list = await ctx.api.get<NamespaceListResponse>("/v1/namespaces");
  const rows = list.namespaces.map((n) =>
    row(
      h(
        "button",
        {
          class: "linklike",
          attrs: { type: "button", "aria-label": `Entries of ${n.name}` },
          on: {
            click: () =>
              void entriesView(ctx, entriesBox, historyBox, n.name)
                .then(() => entriesBox.querySelector<HTMLElement>("h3")?.focus())
                .catch(ctx.fail),
          },
        },
        n.name,
      ),
      String(n.entries),
      String(n.cursor),
    ),
  );
  replace(
    root,
    h("h2", { attrs: { id: "namespaces-title", tabindex: -1 } }, "Namespaces"),
    table("The team's namespaces", ["Namespace", "Live entries", "Cursor"], rows, "No namespace yet."),
    entriesBox,
    historyBox,
  );
};
