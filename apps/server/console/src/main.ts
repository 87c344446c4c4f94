/**
 * The console's entry: sign-in (the token is checked with GET /v1/team/whoami and kept in memory
 * only), the page switcher (the URL's hash names the page: #audit, #bypasses, #namespaces,
 * #members; never a token) and the shared status lines.
 */
import type { WhoamiResponse } from "@teammem/protocol";
import { ApiError, createApi, type Api } from "./api.js";
import { auditPage } from "./audit-page.js";
import { bypassesPage } from "./bypasses-page.js";
import { membersPage } from "./members-page.js";
import { namespacesPage } from "./namespaces-page.js";
import type { Page, PageContext } from "./page.js";

const PAGES: Record<string, { title: string; render: Page }> = {
  audit: { title: "Audit log", render: auditPage },
  bypasses: { title: "Bypasses", render: bypassesPage },
  namespaces: { title: "Namespaces", render: namespacesPage },
  members: { title: "Members and tokens", render: membersPage },
};

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`console markup lacks #${id}`);
  return node as T;
}

/** The message shown for a failed request. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

function start(): void {
  const signIn = byId<HTMLElement>("sign-in");
  const form = byId<HTMLFormElement>("sign-in-form");
  const tokenInput = byId<HTMLInputElement>("token");
  const signInError = byId<HTMLElement>("sign-in-error");
  const nav = byId<HTMLElement>("nav");
  const who = byId<HTMLElement>("who");
  const whoText = byId<HTMLElement>("who-text");
  const statusLine = byId<HTMLElement>("status");
  const errorLine = byId<HTMLElement>("error");
  const pageRoot = byId<HTMLElement>("page");
  const main = byId<HTMLElement>("main");

  let session: { api: Api; user: string } | null = null;
  let rendering = 0;

  const ctxFor = (s: { api: Api; user: string }): PageContext => ({
    api: s.api,
    user: s.user,
    status: (message) => {
      errorLine.textContent = "";
      statusLine.textContent = message;
    },
    fail: (err) => {
      statusLine.textContent = "";
      errorLine.textContent = describeError(err);
      if (err instanceof ApiError && (err.code === "token_revoked" || err.code === "token_expired")) signOut(describeError(err));
    },
    clear: () => {
      statusLine.textContent = "";
      errorLine.textContent = "";
    },
  });

  async function show(name: string, focus: boolean): Promise<void> {
    if (!session) return;
    const page = PAGES[name] ?? PAGES.audit!;
    const key = PAGES[name] ? name : "audit";
    for (const link of nav.querySelectorAll<HTMLAnchorElement>("a[data-page]")) {
      if (link.dataset.page === key) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    document.title = `${page.title} · teammem admin console`;
    const ctx = ctxFor(session);
    ctx.clear();
    const root = document.createElement("section");
    root.setAttribute("aria-labelledby", `${key}-title`);
    pageRoot.replaceChildren(root);
    const turn = ++rendering;
    try {
      await page.render(ctx, root);
    } catch (err) {
      if (turn === rendering) ctx.fail(err);
    }
    if (focus && turn === rendering) root.querySelector<HTMLElement>("h2")?.focus();
  }

  function signOut(message = ""): void {
    session = null;
    pageRoot.replaceChildren();
    pageRoot.hidden = true;
    nav.hidden = true;
    who.hidden = true;
    whoText.textContent = "";
    statusLine.textContent = "";
    errorLine.textContent = "";
    signIn.hidden = false;
    signInError.textContent = message;
    tokenInput.focus();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    signInError.textContent = "";
    if (!token) {
      signInError.textContent = "Paste an admin token first.";
      tokenInput.focus();
      return;
    }
    const api = createApi(token);
    void (async () => {
      try {
        const me = await api.get<WhoamiResponse>("/v1/team/whoami");
        if (me.role !== "admin") {
          signInError.textContent = `This token is ${me.user}'s with the ${me.role} role; the console needs an admin token.`;
          tokenInput.focus();
          return;
        }
        tokenInput.value = "";
        session = { api, user: me.user };
        whoText.textContent = `${me.user} · team ${me.team}`;
        signIn.hidden = true;
        nav.hidden = false;
        who.hidden = false;
        pageRoot.hidden = false;
        await show(location.hash.slice(1), true);
      } catch (err) {
        signInError.textContent = `Sign-in failed: ${describeError(err)}`;
        tokenInput.focus();
      }
    })();
  });

  byId<HTMLButtonElement>("sign-out").addEventListener("click", () => signOut("Signed out."));
  window.addEventListener("hashchange", () => void show(location.hash.slice(1), true));
  main.addEventListener("keydown", (event) => {
    if (event.key === "Escape") errorLine.textContent = "";
  });
  tokenInput.focus();
}

start();
