/**
 * Bypasses: the team's requests (pending by default), approve or deny a pending one with an
 * optional note, revoke an approved one; and the team's bypass policy (immediate or approval).
 */
import type { Bypass, BypassList, BypassResponse, TeamPolicy } from "@teammem/protocol";
import { badge, field, h, replace, row, select, table, time } from "./dom.js";
import type { Page } from "./page.js";

const STATUSES = [
  ["pending", "Pending"],
  ["approved", "Approved"],
  ["denied", "Denied"],
  ["revoked", "Revoked"],
  ["all", "All"],
] as const;

export const bypassesPage: Page = async (ctx, root) => {
  const statusSelect = select("status", STATUSES, "pending");
  const listBox = h("div");
  const policyBox = h("div", { class: "card" });

  const decide = async (b: Bypass, action: "approve" | "deny" | "revoke", note: string) => {
    if (action === "revoke" && !window.confirm(`Revoke the bypass of ${b.ruleId} at ${b.namespace}:${b.path}:${b.line}? The secret is held back again.`)) return;
    try {
      const res = await ctx.api.send<BypassResponse>("POST", `/v1/admin/bypasses/${b.id}/${action}`, note ? { note } : {});
      await load();
      ctx.status(`Bypass of ${res.bypass.ruleId} at ${res.bypass.path}:${res.bypass.line} ${res.bypass.status}.`);
    } catch (err) {
      ctx.fail(err);
    }
  };

  const actions = (b: Bypass): HTMLElement => {
    if (b.status === "pending" || b.status === "approved") {
      const note = h("input", { attrs: { type: "text", name: "note", id: `note-${b.id}`, maxlength: 500, autocomplete: "off", placeholder: "note (optional)" } });
      const label = `Note (optional) for ${b.path}:${b.line}`;
      const buttons =
        b.status === "pending"
          ? [
              h("button", { class: "primary", attrs: { type: "button" }, on: { click: () => void decide(b, "approve", note.value.trim()) } }, "Approve"),
              h("button", { class: "danger", attrs: { type: "button" }, on: { click: () => void decide(b, "deny", note.value.trim()) } }, "Deny"),
            ]
          : [h("button", { class: "danger", attrs: { type: "button" }, on: { click: () => void decide(b, "revoke", note.value.trim()) } }, "Revoke")];
      return h("div", { class: "inline-form" }, h("div", {}, h("label", { class: "visually-hidden", attrs: { for: `note-${b.id}` } }, label), note), ...buttons);
    }
    return h("span", { class: "muted" }, b.revokedBy ? `revoked by ${b.revokedBy}` : b.decidedBy ? `by ${b.decidedBy}` : "");
  };

  let turn = 0; // the list shows its latest load only
  const load = async () => {
    const mine = ++turn;
    const list = await ctx.api.get<BypassList>("/v1/admin/bypasses", { status: statusSelect.value, limit: 200 });
    if (mine !== turn) return;
    const rows = list.bypasses.map((b) =>
      row(
        h("div", {}, time(b.requestedAt), h("div", { class: "muted" }, b.requestedBy)),
        h("div", {}, b.namespace, h("div", { class: "mono" }, `${b.path}:${b.line}${b.column ? `:${b.column}` : ""}`)),
        b.ruleId,
        h("span", { class: "mono", attrs: { title: b.fingerprint } }, b.fingerprint.length > 16 ? `${b.fingerprint.slice(0, 16)}…` : b.fingerprint, b.currentKey ? null : " (old key)"),
        h("div", {}, b.reason, b.reasonText ? h("div", { class: "muted" }, b.reasonText) : null, b.note ? h("div", {}, `note: ${b.note}`) : null, b.revokeNote ? h("div", {}, `revoke note: ${b.revokeNote}`) : null),
        badge(b.status),
        actions(b),
      ),
    );
    const title = STATUSES.find(([v]) => v === statusSelect.value)?.[1] ?? "";
    replace(listBox, table(`${title} bypass requests, newest first`, ["Requested", "Where", "Rule", "Fingerprint", "Reason", "Status", "Action"], rows, "No request."));
  };

  const loadPolicy = async () => {
    const policy = await ctx.api.get<TeamPolicy>("/v1/admin/policy");
    const choice = select(
      "bypassPolicy",
      [
        ["approval", "approval: requests wait for an admin"],
        ["immediate", "immediate: requests apply at once"],
      ],
      policy.bypassPolicy,
    );
    replace(
      policyBox,
      h(
        "form",
        {
          class: "inline-form",
          attrs: { "aria-label": "Bypass policy" },
          on: {
            submit: (event) => {
              event.preventDefault();
              void ctx.api
                .send<TeamPolicy>("PUT", "/v1/admin/policy", { bypassPolicy: choice.value })
                .then((p) => ctx.status(`Bypass policy set to ${p.bypassPolicy}.`))
                .catch(ctx.fail);
            },
          },
        },
        field("Team bypass policy", choice),
        h("button", { attrs: { type: "submit" } }, "Save policy"),
      ),
    );
  };

  statusSelect.addEventListener("change", () => void load().catch(ctx.fail));
  replace(
    root,
    h("h2", { attrs: { id: "bypasses-title", tabindex: -1 } }, "Bypasses"),
    h("p", { class: "muted" }, "Requests to let a held-back secret through, by fingerprint (never the value). An approved value syncs in every file of every namespace of the team, not only where it was asked for; revoke to hold it back again."),
    policyBox,
    h("div", { class: "card inline-form" }, field("Show", statusSelect)),
    listBox,
  );
  await Promise.all([load(), loadPolicy()]);
};
