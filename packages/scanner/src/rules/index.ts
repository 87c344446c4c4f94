import type { Rule } from "../rule.js";
import { githubPat } from "./github-pat.js";
export const RULES: readonly Rule[] = [githubPat];
