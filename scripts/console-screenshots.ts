#!/usr/bin/env node
/**
 * `npm run screenshots`: screenshots of the admin console's main pages at 1280 px (and the audit
 * log at 390 px) into apps/server/docs/console-*.png, for the server README. Redo them after
 * changing the console.
 *
 * Starts the built server (`tsc -b` first; the npm script does) on an in-memory embedded database,
 * seeds it through the HTTP API with test/support/console-seed.ts (the same data as the browser
 * test), and drives /usr/bin/chromium headless through playwright-core. No token is ever on screen.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { buildApp, issueToken } from "@teammem/server";
import { createTestDatabase } from "@teammem/server/testing";
import { seedConsole } from "../test/support/console-seed.js";

const CHROMIUM = "/usr/bin/chromium";
const OUT = fileURLToPath(new URL("../apps/server/docs/", import.meta.url));

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const tdb = await createTestDatabase("pglite");
  const jwtSecret = randomBytes(32).toString("hex");
  const app = await buildApp({ db: tdb.database.db, jwtSecret, limits: { rateLimitMax: 0 } });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const token = async (user: string, role: "admin" | "member" | "reader") =>
    (await issueToken(tdb.database.db, jwtSecret, { teamName: "acme", userName: user, role })).token;
  const admin = await token("ada", "admin");
  await token("rita", "reader");
  const seed = await seedConsole(url, await token("ann", "member"));

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("dialog", (d) => void d.dismiss());
    const shot = async (p: Page, name: string) => {
      await p.waitForLoadState("networkidle");
      await p.screenshot({ path: `${OUT}console-${name}.png`, fullPage: true });
      console.log(`apps/server/docs/console-${name}.png`);
    };

    await page.goto(`${url}/admin#audit`);
    await page.locator("#token:focus").waitFor();
    await shot(page, "sign-in");
    await page.fill("#token", admin);
    await page.keyboard.press("Enter");
    await page.locator("#audit-title").waitFor();
    await page.getByRole("button", { name: /^Show event/ }).last().click();
    await page.locator("#audit-detail-title").waitFor();
    await shot(page, "audit");

    await page.click("a[data-page=bypasses]");
    await page.locator("tr", { hasText: `${seed.blockedPath}:2` }).waitFor();
    await shot(page, "bypasses");

    await page.click("a[data-page=namespaces]");
    await page.getByRole("button", { name: `Entries of ${seed.namespace}` }).click();
    await page.getByRole("button", { name: `History of ${seed.notesPath}` }).click();
    await page.getByRole("button", { name: "Compare selected versions" }).click();
    await page.locator("table.diff").waitFor();
    await shot(page, "namespaces");

    await page.click("a[data-page=members]");
    await page.locator("table:has(caption:text('Tokens'))").waitFor();
    await shot(page, "members");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.click("a[data-page=audit]");
    await page.locator("#audit-title").waitFor();
    await shot(page, "audit-390");
  } finally {
    await browser.close();
    await app.close();
    await tdb.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(`screenshots: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
