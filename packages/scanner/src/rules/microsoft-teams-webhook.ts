import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";

const uuid = (seed: number) =>
  [8, 4, 4, 4, 12].map((n, i) => randomChars(n, seed * 10 + i, ALPHABETS.hex)).join("-");

/**
 * Microsoft Teams incoming webhook (Office 365 connector) URL:
 * `https://<tenant>.webhook.office.com/webhookb2/<group uuid>@<tenant uuid>/IncomingWebhook/<32 hex>/<uuid>`
 * (newer URLs append `/V2…`, part of the token); anyone holding it can post. Microsoft Learn, "Create an Incoming
 * Webhook" (https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook);
 * gitleaks `microsoft-teams-webhook`. The tenant label (the `lead`) starts with a letter or digit (RFC 1123
 * §2.1), so a `-` before a bare host (a diff line) is not part of the finding.
 */
const rule: Rule = {
  id: "microsoft-teams-webhook",
  label: "Microsoft Teams incoming webhook URL",
  prefixes: ["webhook.office.com/webhookb2/"],
  pattern:
    /(?<=(?<lead>[A-Za-z0-9][A-Za-z0-9-]{0,62}\.))webhook\.office\.com\/webhookb2\/[a-f0-9]{8}-(?:[a-f0-9]{4}-){3}[a-f0-9]{12}@[a-f0-9]{8}-(?:[a-f0-9]{4}-){3}[a-f0-9]{12}\/IncomingWebhook\/(?<body>[A-Za-z0-9]{32})\/[a-f0-9]{8}-(?:[a-f0-9]{4}-){3}[a-f0-9]{12}(?:\/V2[A-Za-z0-9_-]{1,100})?/y,
  validate: (v) => !/^0+$/.test(v),
  examples: () => ({
    positive: [
      `TEAMS_URL=https://contoso.webhook.office.com/webhookb2/${uuid(1)}@${uuid(2)}/IncomingWebhook/${randomChars(32, 121, ALPHABETS.hex)}/${uuid(3)}`,
      `"webhook": "https://acme.webhook.office.com/webhookb2/${uuid(4)}@${uuid(5)}/IncomingWebhook/${randomChars(32, 122, ALPHABETS.hex)}/${uuid(6)}/V2abc"`,
    ],
    negative: [
      "https://contoso.webhook.office.com/webhookb2/<group>@<tenant>/IncomingWebhook/<id>/<owner>", // documentation placeholder
      `https://contoso.webhook.office.com/webhookb2/${uuid(7)}@${uuid(8)}`, // truncated
      `https://contoso.webhook.office.com/webhookb2/${uuid(9)}@${uuid(10)}/IncomingWebhook/${"0".repeat(32)}/${uuid(11)}`, // zeroed
    ],
  }),
};
export default rule;
