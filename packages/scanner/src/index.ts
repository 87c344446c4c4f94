export type { Finding, Rule } from "./rule.js";
export { scan, type ScanOptions } from "./scan.js";
export { RULES } from "./rules/index.js";
