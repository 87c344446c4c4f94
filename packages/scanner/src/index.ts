/**
 * @teammem/scanner: high-confidence, prefix-based credential scanner with a linear-time engine.
 * See README.md for the API, the CLI, the config format and the engine design.
 */
export type { Finding, Rule, RuleExamples } from "./rule.js";
export { scan, redact, scanSpans, ALLOW_MARKER, type ScanOptions, type Span } from "./scan.js";
export { RULES } from "./rules/index.js";
export { checkPatternSafety, MAX_MATCH_WIDTH, type PatternSafety, type PatternProblem } from "./engine/safety.js";
export { compileRules } from "./engine/compile.js";
export { normalize } from "./engine/normalize.js";
export { PrefixAutomaton } from "./engine/prefix-automaton.js";
export { fingerprint, loadFingerprintKey, FingerprintKeyError, type FingerprintKeyErrorCode, FINGERPRINT_HEX_LENGTH, DEFAULT_FINGERPRINT_KEY } from "./fingerprint.js";
export { KNOWN_EXAMPLE_VALUES, isKnownExample } from "./examples.js";
export { crc32, base62, hasGithubChecksum, hasNpmChecksum, githubChecksum } from "./checksums.js";
export { loadConfig, parseConfig, ConfigError, type ScanConfig } from "./config.js";
export { escapeControls } from "./escape-controls.js";
export { fileText, decodeUtf16WithBom, MAX_SCAN_FILE_BYTES, type FileText } from "./text-file.js";
export type { Encoding } from "./engine/decode.js";
