/**
 * The admin console at /admin in a real browser (Debian's Chromium through playwright-core) against
 * a real server on PostgreSQL: sign-in (a wrong token is refused), the audit log filtered to a
 * refused upload (rule, path, line, user), approving a bypass, an entry's history with a diff and a
 * restore, the 390 px layout, and that neither the page nor any response it received holds the
 * planted credential. One browser and one page for the whole file.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). Outside CI a missing
 * Chromium skips this file with a message; in CI (CI or TEAMMEM_CI set) it fails.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page, type Response } from "playwright-core";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { requestBypass, seedConsole, type ConsoleSeed } from "../support/console-seed.js";
import { startTestServer, type TestServer } from "../support/server.js";

const CHROMIUM = "/usr/bin/chromium";
const inCi = Boolean(process.env.CI || process.env.TEAMMEM_CI);
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && !inCi) console.warn(`test/console: skipped: ${CHROMIUM} is missing (apt-get install -y chromium); CI installs it and runs these tests`);

describe.skipIf(!haveChromium && !inCi)("admin console in Chromium", () => {
  let server: TestServer;
  let seed: ConsoleSeed;
  let adminToken: string;
  let memberToken: string;
  let browser: Browser;
  let page: Page;
  const bodies: Promise<string>[] = [];
  const consoleErrors: string[] = [];

  const api = async (path: string) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${adminToken}` } })).json();

  beforeAll(async () => {
    server = await startTestServer("postgres");
    adminToken = await server.token("ada", "acme", "admin");
    memberToken = await server.token("ann", "acme", "member");
    seed = await seedConsole(server.url, memberToken);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("response", (res: Response) => {
      bodies.push(res.text().catch(() => ""));
    });
    page.on("console", (msg) => {
      if (msg.type() === "error") consoleErrors.push(msg.text());
    });
    page.on("dialog", (dialog) => void dialog.accept());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  it("serves the console with a strict Content-Security-Policy and no external resource", async () => {
    const res = await page.goto(`${server.url}/admin`);
    expect(res?.status()).toBe(200);
    const csp = res?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await page.content();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    await page.locator("#token:focus").waitFor(); // the module ran and focused the sign-in field
  });

  it("refuses a wrong token and a member's token with a visible error", async () => {
    await page.fill("#token", "not-a-token");
    await page.click("#sign-in-form button[type=submit]");
    await page.locator("#sign-in-error", { hasText: /\S/ }).waitFor();
    expect(await page.textContent("#sign-in-error")).toContain("(unauthorized)");
    await page.fill("#token", memberToken);
    await page.keyboard.press("Enter");
    await page.locator("#sign-in-error", { hasText: "needs an admin token" }).waitFor();
    expect(await page.isVisible("#nav")).toBe(false);
  });

  it("signs in with an admin token kept out of the URL and storage", async () => {
    await page.fill("#token", adminToken);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#nav:not([hidden])");
    expect(await page.textContent("#who-text")).toBe("ada · team acme");
    expect(await page.inputValue("#token")).toBe("");
    expect(page.url()).not.toContain(adminToken);
    // (Expressions as strings: they run in the page, whose globals this file's Node types do not know.)
    const stored = String(await page.evaluate("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie"));
    expect(stored).not.toContain(adminToken.slice(-20));
  });

  it("filters the audit log to the refused upload and shows its rule, path, line and user", async () => {
    await page.click("a[data-page=audit]");
    await page.waitForSelector("form[aria-label='Audit filters']");
    await page.getByLabel("Kind").selectOption("upload_rejected");
    await page.getByLabel("User (actor or target)").fill("ann");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.locator("#status", { hasText: /^Showing/ }).waitFor();
    const rows = page.locator("table:has(caption:text('Audit events')) tbody tr");
    expect(await rows.count()).toBe(1);
    const cells = await rows.first().locator("td").allTextContents();
    // Event, Time, Kind, User, Namespace, Path, Rule, Line, Code
    expect(cells.slice(2)).toEqual(["upload_rejected", "ann", seed.namespace, seed.blockedPath, "github-pat", "2:7", "secret_detected"]);
    expect(await page.textContent("figure.chart")).toContain("Events by day");
    // The export of the same filter, fetched with the token and saved as a file.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toBe("audit-events.csv");
    const csv = readFileSync((await download.path())!, "utf8").trim().split("\n");
    expect(csv).toHaveLength(2); // the header and the one matching event
    expect(csv[1]).toContain(seed.blockedPath);
    expect(csv[1]).toContain("upload_rejected");
    await rows.first().getByRole("button").click();
    await page.waitForSelector("#audit-detail-title");
    const detail = await page.textContent("dl.fields");
    expect(detail).toContain(seed.blockedPath);
    const findings = await page.locator("#page li").allTextContents();
    expect(findings).toEqual([expect.stringMatching(/^github-pat \(.*\) at line 2, column 7fingerprint [0-9a-f]+$/)]);
  });

  it("approves the pending bypass request", async () => {
    await page.click("a[data-page=bypasses]");
    const row = page.locator("tr", { hasText: `${seed.blockedPath}:2` });
    await row.waitFor();
    expect(await row.textContent()).toContain("ann");
    await row.getByLabel(/Note/).fill("sandbox token, fine");
    await row.getByRole("button", { name: "Approve" }).click();
    await page.locator("#status", { hasText: "approved" }).waitFor();
    const approved = (await api(`/v1/admin/bypasses/${seed.bypassId}`)) as { bypass: { status: string; decidedBy: string; note: string } };
    expect(approved.bypass).toMatchObject({ status: "approved", decidedBy: "ada", note: "sandbox token, fine" });
  });

  it("opens an entry's history, shows a side-by-side diff of two versions and restores the older one", async () => {
    await page.click("a[data-page=namespaces]");
    await page.getByRole("button", { name: `Entries of ${seed.namespace}` }).click();
    await page.getByRole("button", { name: `History of ${seed.notesPath}` }).click();
    await page.waitForSelector("#history-title");
    await page.getByRole("button", { name: "Compare selected versions" }).click();
    const diff = page.locator("table.diff");
    await diff.waitFor();
    const removed = await diff.locator("td.del").allTextContents();
    const added = await diff.locator("td.add").allTextContents();
    expect(removed).toEqual(["removed: Then npm run build."]);
    expect(added).toEqual(["added: Then npx tsc -b (faster than npm run build).", "added: Lint: npm run lint."]);

    await page.getByRole("button", { name: "Restore version 1" }).click();
    await page.locator("#status", { hasText: "as version 3" }).waitFor();
    const head = (await api(`/v1/namespaces/${encodeURIComponent(seed.namespace)}/entry?path=${encodeURIComponent(seed.notesPath)}`)) as { version: number; content: string };
    expect(head).toMatchObject({ version: 3, content: seed.notesV1 });
    expect(await page.locator("table:has(caption:text('Versions of')) tbody tr").count()).toBe(3);
  });

  it("purges a version's content: history keeps a placeholder naming the admin and the reason", async () => {
    // The history of the entry is open (previous test): version 2's content is notesV2.
    await page.getByRole("button", { name: "Purge version 2" }).click();
    const form = page.locator("form[aria-label='Purge version 2']");
    await form.getByLabel("Reason").fill("held a private note");
    await form.getByRole("button", { name: "Purge" }).click();
    await page.locator("#status", { hasText: "Purged version 2" }).waitFor();
    const purgedRow = page.locator("table:has(caption:text('Versions of')) tbody tr", { hasText: "v2" });
    expect(await purgedRow.textContent()).toContain("purged by ada: held a private note");
    const history = (await api(`/v1/namespaces/${encodeURIComponent(seed.namespace)}/history?path=${encodeURIComponent(seed.notesPath)}`)) as {
      versions: { version: number; purged?: { by: string; reason: string } }[];
    };
    expect(history.versions.find((v) => v.version === 2)?.purged).toMatchObject({ by: "ada", reason: "held a private note" });
  });

  it("works from the keyboard: a page link opened with Enter moves focus to the page's heading", async () => {
    await page.focus("a[data-page=bypasses]");
    await page.keyboard.press("Enter");
    await page.locator("#bypasses-title:focus").waitFor();
    await page.keyboard.press("Shift+Tab"); // the control before the page in tab order: the header's Sign out
    await page.locator("#sign-out:focus").waitFor();
  });

  it("issues a token, shows it once and revokes it", async () => {
    await page.click("a[data-page=members]");
    await page.getByLabel("User", { exact: true }).fill("bob");
    await page.getByRole("button", { name: "Issue token" }).click();
    await page.waitForSelector("code.secret-once");
    await page.locator("#status", { hasText: "Issued a member token for bob" }).waitFor();
    await page.getByRole("button", { name: "Hide token" }).click();
    await page.getByRole("button", { name: /Revoke token .* of bob/ }).click();
    await page.locator("#status", { hasText: /^Revoked bob/ }).waitFor();
    const tokens = (await api("/v1/admin/tokens")) as { tokens: { user: string; revokedAt: string | null }[] };
    expect(tokens.tokens.filter((t) => t.user === "bob").map((t) => t.revokedAt !== null)).toEqual([true]);
  });

  it("is usable at 390 px: no page scrolls the body sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // A pending request too (the seed's was approved above): its row carries the note field and both buttons.
    await requestBypass(server.url, memberToken, seed, fakeGithubPat(4243), "another sandbox token, for the staging deploy example");
    for (const name of ["audit", "bypasses", "namespaces", "members"]) {
      await page.click(`a[data-page=${name}]`);
      await page.waitForSelector(`#${name}-title`);
      await page.waitForLoadState("networkidle");
      const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
      expect({ name, overflow }).toEqual({ name, overflow: 0 });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("never shows or receives the planted credential, and the page raised no error (no CSP violation)", async () => {
    expect(seed.secret.length).toBeGreaterThan(30);
    const received = await Promise.all(bodies);
    expect(received.length).toBeGreaterThan(20);
    expect(received.filter((b) => b.includes(seed.secret))).toEqual([]);
    expect(await page.content()).not.toContain(seed.secret);
    expect(consoleErrors.filter((e) => !e.includes("401") && !e.includes("403"))).toEqual([]);
  });
});
