/**
 * A detection rule: one credential format with a distinctive literal prefix.
 * One rule per file under `rules/`; `rules/index.ts` lists them all (generated, see README).
 */
export interface Rule {
  /** kebab-case; the gitleaks id where gitleaks has a rule for the same format. */
  readonly id: string;
  /** Human label, e.g. "GitHub personal access token (classic)". */
  readonly label: string;
  /**
   * Literal, case-sensitive strings, at least one of which starts every match of `pattern`.
   * The engine only runs `pattern` where a prefix occurs.
   */
  readonly prefixes: readonly string[];
  /**
   * Sticky (`y`) regular expression tried at each prefix occurrence (lastIndex = prefix position).
   * It describes the token only: no lookbehind or lookahead at its edges, since the engine derives
   * the token's boundaries from the pattern's alphabet (engine/boundaries.ts). Named groups:
   * - `lead`, inside a leading lookbehind `(?<=(?<lead>…))`: the token starts there, before its
   *   literal prefix (a prefix that sits inside the token, e.g. Azure's `…7Q~…`);
   * - `glue`, optional and literal, before `lead` in that lookbehind, `(?<=(?<glue>bot)?(?<lead>…))`:
   *   text the format's documentation glues to the token (Telegram's `/bot<token>/`); not part of the
   *   finding, and the start boundary is checked before it when it is there;
   * - `secret`: the value, when the match holds context that is not part of it (`AccountKey=`,
   *   `://user:password@`, a PEM header); the finding (positions, redaction, fingerprint) is then
   *   this group instead of the whole token;
   * - `body`: the random part `validate` checks (default: the value).
   * Quantifiers must be bounded so each attempt costs O(max token length); `checkPatternSafety`
   * (engine/safety.ts) must accept it: no `*`, `+`, `{n,}`; no variable-width content under a
   * quantifier with max > 4.
   */
  readonly pattern: RegExp;
  /**
   * Set by the pair rules (rule-helpers/key-pair.ts, `pairRule`): the scan then finds the secret next
   * to the ID from positions collected once per text (pair-search.ts) instead of running `pattern`,
   * which describes the same matches and stays the rule's reference (safety check, boundaries).
   */
  readonly pair?: PairSpec;
  /**
   * Extra check of the matched value (the `body` group, else the value), e.g. a checksum. Must be a
   * pure function of the string: a scan asks once per distinct string and reuses the verdict.
   */
  readonly validate?: (value: string) => boolean;
  /**
   * True when `validate` checks a checksum that the format embeds in every token of the rule
   * (GitHub's and npm's CRC-32, Cloudflare's, Atlassian's, age's Bech32; src/checksums.ts): a valid
   * checksum is the confidence, so no start boundary is derived (engine/compile.ts) and a token
   * glued to a word or a dotted name before it is found (`MY_ghp_…`, `x.ghp_…`, `mghp_…` after a
   * terminal colour code). The end boundary stays. Requires `validate`.
   */
  readonly checksum?: boolean;
  /**
   * True for a rule that reports a container of any credential (a URL's user info,
   * `scheme://user:password@host`) rather than one vendor's format. When a finding of a rule that
   * is not generic lies inside one of its findings (a GitHub token as the password of
   * `https://x-access-token:<token>@github.com`), that finding is reported and this one is not:
   * the vendor rule names the token, its owner and how to revoke it. See scan.ts.
   */
  readonly generic?: boolean;
  /**
   * Ids of rules that name some of this rule's matches more precisely (the any-scheme URL rule
   * yields to the database and HTTP ones): where one of them reports the same span, its finding is
   * kept and this rule's dropped, whatever the catalog order. Ids not in the scanned catalog are
   * ignored. See scan.ts.
   */
  readonly yieldsTo?: readonly string[];
  /**
   * A literal every match of `pattern` holds after the prefix (the `@` of a URL's user info). A
   * prefix occurrence with no such literal within the pattern's longest match after it is refused
   * before the pattern runs; the engine finds the literal with one forward search per text,
   * shared by all hits (engine/match.ts). Only an optimisation: it must never refuse a match.
   */
  readonly contains?: string;
  /**
   * What the fingerprint is of, when the value holds layout that is not the credential: the key
   * block rules give the key material (`blockBody`: base64 without line breaks, their `\n`
   * escapes, line leads such as `> ` and blanks), so one key written plainly, JSON-escaped or
   * quoted gets one fingerprint (try14 F9). Default: the value as it is.
   */
  readonly fingerprintOf?: (value: string) => string;
  /**
   * Examples a test iterates: each `positive` text must give exactly one finding, of this rule;
   * each `negative` text must give none from this rule. A function, so fake tokens are generated at
   * test time (never literal in source) and cost nothing at import.
   */
  readonly examples: () => RuleExamples;
}

/**
 * One credential found in a text. Never holds the value.
 * `line`/`column`/`endLine`/`endColumn` are 1-based, columns in UTF-16 code units of the original
 * text; `endColumn` is exclusive.
 */
export interface Finding {
  readonly ruleId: string;
  readonly label: string;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  /** 0-based UTF-16 offset of the first code unit in the original text (set by `scan`). */
  readonly offset?: number;
  /** 0-based UTF-16 offset just past the last code unit in the original text (set by `scan`). */
  readonly endOffset?: number;
  /** Keyed hash (HMAC-SHA-256, hex, truncated to 32 chars) of the value with the installation's key. */
  readonly fingerprint: string;
  /** The prefix followed by `*`s, e.g. `ghp_****`. */
  readonly preview: string;
  /**
   * Set when the value was found only in encoded form: the encoding(s), outermost first, joined by
   * `/` (`base64`, `base64url`, `base64-utf16le`, `base64url-utf16le`, `base64-utf16be`, `base64url-utf16be`, `hex`, `percent`, `json-unicode`, `html-entity`, `hex-escape`,
   * `octal-escape`, `quoted-printable`, `code-point-escape`, `named-escape`, e.g. `base64/json-unicode`;
   * several kinds in one escaped word are joined by `+`). Positions then cover the encoded text and
   * the fingerprint is the decoded value's, as if it had been written plainly.
   */
  readonly encoding?: string;
}

export interface RuleExamples {
  readonly positive: readonly string[];
  /** Texts that must not be reported by this rule (placeholders, truncations, bad checksums, ...). */
  readonly negative: readonly string[];
}

/**
 * A secret next to the ID that names it (see {@link Rule.pair}): the ID, then within the window
 * (the ID's line and up to {@link PairSpec.maxLines} more, each read up to
 * {@link PairSpec.maxLineChars} code units) a run of exactly `length` code units of the secret's
 * alphabet, or, when none follows, such a run before the ID within the same window.
 */
export interface PairSpec {
  /** Sticky regular expression of the ID alone, tried at the prefix occurrence. */
  readonly id: RegExp;
  /** 128 flags, 1 for each ASCII code unit of the secret's alphabet (no non-ASCII code unit is in it). */
  readonly secretChars: Uint8Array;
  /** Exact length of the secret in code units (a longer run of the alphabet is not a secret). */
  readonly length: number;
  /** Newlines the gap between ID and secret may cross (4: the same line or one of the next 4). */
  readonly maxLines: number;
  /** Code units of a line the gap may read (160). */
  readonly maxLineChars: number;
}
