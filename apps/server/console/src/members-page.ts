/**
 * Members and tokens: the team, its members and their roles (change a role), its tokens (never
 * their values; revoke one) and issuing a token (its value is shown once, here, and never again).
 */
import type { IssueTokenResponse, MemberList, MemberRoleChange, TeamInfo, TokenInfo, TokenList } from "@teammem/protocol";
import { ApiError } from "./api.js";
import { badge, field, h, replace, row, select, table, time } from "./dom.js";
import type { Page } from "./page.js";

const ROLES = [
  ["admin", "admin"],
  ["member", "member"],
  ["reader", "reader"],
] as const;

export const membersPage: Page = async (ctx, root) => {
  const teamLine = h("p", { class: "muted" });
  const membersBox = h("div");
  const tokensBox = h("div");
  const issuedBox = h("div", { attrs: { "aria-live": "polite" } });

  // Each list shows the answer of its latest load only (an earlier, slower load never paints over it).
  let membersTurn = 0;
  let tokensTurn = 0;

  const loadMembers = async () => {
    const turn = ++membersTurn;
    const [team, list] = await Promise.all([ctx.api.get<TeamInfo>("/v1/admin/team"), ctx.api.get<MemberList>("/v1/admin/members")]);
    if (turn !== membersTurn) return;
    teamLine.textContent = `Team ${team.name}, created ${new Date(team.createdAt).toLocaleDateString()}, ${team.members} member${team.members === 1 ? "" : "s"}.`;
    const rows = list.members.map((m) => {
      const role = select("role", ROLES, m.role);
      role.setAttribute("aria-label", `Role of ${m.user}`);
      const save = h("button", { attrs: { type: "button", "aria-label": `Set the role of ${m.user}` } }, "Set role");
      save.addEventListener("click", () => {
        void ctx.api
          .send<MemberRoleChange>("PUT", `/v1/admin/members/${encodeURIComponent(m.user)}`, { role: role.value })
          .then(async (c) => {
            await loadMembers();
            ctx.status(c.previousRole === c.role ? `${c.user} already had the ${c.role} role.` : `${c.user} is now ${c.role} (was ${c.previousRole}).`);
          })
          .catch(ctx.fail);
      });
      return row(m.user, h("div", { class: "actions" }, role, save), time(m.joinedAt));
    });
    replace(membersBox, table("Members", ["User", "Role", "Joined"], rows, "No member."));
  };

  const revoke = async (t: TokenInfo) => {
    if (!window.confirm(`Revoke ${t.user}'s ${t.role} token ${t.tokenId.slice(0, 8)}? Clients using it stop working.`)) return;
    try {
      await ctx.api.send("DELETE", `/v1/admin/tokens/${t.tokenId}`);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "last_admin_token")) return ctx.fail(err);
      if (!window.confirm(`${err.message}. Revoke it anyway? You will need the server's command line to issue a new admin token.`)) return;
      try {
        await ctx.api.send("DELETE", `/v1/admin/tokens/${t.tokenId}`, undefined, { force: "true" });
      } catch (err2) {
        return ctx.fail(err2);
      }
    }
    await loadTokens();
    ctx.status(`Revoked ${t.user}'s token ${t.tokenId.slice(0, 8)}.`);
  };

  const loadTokens = async () => {
    const turn = ++tokensTurn;
    const list = await ctx.api.get<TokenList>("/v1/admin/tokens");
    if (turn !== tokensTurn) return;
    const now = Date.now();
    const rows = list.tokens.map((t) => {
      const expired = t.expiresAt !== null && new Date(t.expiresAt).getTime() <= now;
      const state = t.revokedAt ? badge("revoked") : expired ? badge("expired", "bad") : badge("valid", "ok");
      return row(
        h("span", { class: "mono", attrs: { title: t.tokenId } }, t.tokenId.slice(0, 8)),
        t.user,
        t.role,
        time(t.createdAt),
        t.expiresAt ? time(t.expiresAt) : "never",
        state,
        t.revokedAt || expired
          ? ""
          : h("button", { class: "danger", attrs: { type: "button", "aria-label": `Revoke token ${t.tokenId.slice(0, 8)} of ${t.user}` }, on: { click: () => void revoke(t) } }, "Revoke"),
      );
    });
    replace(tokensBox, table("Tokens, newest first (values are never shown again)", ["Id", "User", "Role", "Created", "Expires", "State", "Action"], rows, "No token."));
  };

  const user = h("input", { attrs: { type: "text", name: "user", required: true, autocomplete: "off", spellcheck: "false", pattern: "[A-Za-z0-9][A-Za-z0-9._@\\-]{0,63}" } });
  const role = select("role", ROLES, "member");
  const days = h("input", { attrs: { type: "number", name: "expiresInDays", min: 1, max: 3650, inputmode: "numeric" } });
  const issueForm = h(
    "form",
    {
      class: "card",
      attrs: { "aria-labelledby": "issue-title" },
      on: {
        submit: (event) => {
          event.preventDefault();
          const body: { user: string; role: string; expiresInDays?: number } = { user: user.value.trim(), role: role.value };
          if (days.value) body.expiresInDays = Number(days.value);
          void ctx.api
            .send<IssueTokenResponse>("POST", "/v1/admin/tokens", body)
            .then(async (issued) => {
              replace(
                issuedBox,
                h(
                  "div",
                  { class: "card" },
                  h("h4", { attrs: { tabindex: -1 } }, `Token for ${body.user} (${body.role}), shown once`),
                  h("code", { class: "secret-once" }, issued.token),
                  h("p", { class: "muted" }, "Copy it now and hand it over privately; the server keeps no copy. Hide it when done."),
                  h("button", { attrs: { type: "button" }, on: { click: () => replace(issuedBox) } }, "Hide token"),
                ),
              );
              issuedBox.querySelector<HTMLElement>("h4")?.focus();
              user.value = "";
              days.value = "";
              ctx.status(`Issued a ${body.role} token for ${body.user}.`);
              await Promise.all([loadTokens(), loadMembers()]);
            })
            .catch(ctx.fail);
        },
      },
    },
    h("h3", { attrs: { id: "issue-title" } }, "Issue a token"),
    h("div", { class: "inline-form" }, field("User", user), field("Role", role), field("Expires in days (empty: never)", days), h("button", { class: "primary", attrs: { type: "submit" } }, "Issue token")),
  );

  replace(
    root,
    h("h2", { attrs: { id: "members-title", tabindex: -1 } }, "Members and tokens"),
    teamLine,
    h("h3", {}, "Members"),
    membersBox,
    issueForm,
    issuedBox,
    h("h3", {}, "Tokens"),
    tokensBox,
  );
  await Promise.all([loadMembers(), loadTokens()]);
};
