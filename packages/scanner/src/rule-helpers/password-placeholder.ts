/**
 * Whether a password a person chose (a URL's password, a NuGet.Config `ClearTextPassword`) is a
 * documentation stand-in rather than a credential. Issue 10: a real password is a credential even
 * when it is a common word (`hunter2`, `changeme`, `Password2024!`) or merely CONTAINS a word that
 * stand-ins use (`Xplaceholder9!`, `replace4Me!`, `redactedTuna7`, `pa...ss`, `a1xxx9`): only a
 * value that IS a stand-in, as a whole, is one. (Token rules keep the substring test of
 * placeholder.ts: a random token body holds such a word with odds below 1e-4, a chosen password
 * does not.) The exact rule is in the package README ("Credentials in URLs", rules 2 and 3).
 */

/**
 * A template or variable: a complete `${…}`, `$(…)`, `{{…}}`, `%(…)s` or `<…>` expression anywhere
 * (the text does not hold the value: `pw_${ENV}` is interpolated), or, as the whole value, a shell
 * variable `$NAME` (`$3cr3t!` is a password), wrapped in `%…%` (Windows `%NAME%`), `{…}` (a format
 * field) or `[…]` (`[password]`, this scanner's own `[REDACTED:<rule>]`), a named parameter
 * `:name`, or `%s`.
 */
const TEMPLATE =
  /\$\{[^{}]*\}|\$\([^()]*\)|\{\{[^{}]*\}\}|%\([^()]*\)s|<[^<>]*>|^\$[A-Za-z_][A-Za-z0-9_]*$|^%.*%$|^\{.*\}$|^\[.*\]$|^:[A-Za-z_][A-Za-z0-9_]*$|^%s$/;

/** Characters a masked or elided value is written with (`****`, `xxxx`, `...`, `•••`, `XXXX-XXXX`). */
const MASK = /^[xX*.…•#_-]+$/;

/**
 * Stand-in words, as the whole value (lower-cased, after trimming mask characters: `***REDACTED***`,
 * `__PASSWORD__`): `password`, `passwd`, `pass`, `pwd`, `pw`, `secret`, each optionally after `your`,
 * `my`, `db`, `the`, `user`, `some` or `new` and optionally followed by `here` (`YOUR_PASSWORD`,
 * `db-pass`, `password_here`); `placeholder`, `redacted`, `replace_me`, `replace_with_<words>`,
 * `insert_<words>_here`, `enter_<words>_here`, `put_<words>_here`, `<words>_goes_here`.
 */
const STAND_IN =
  /^(?:(?:your|my|db|the|user|some|new)[_-]?)?(?:password|passwd|pass|pwd|pw|secret)(?:[_-]?here)?$|^(?:placeholder|redacted|replace[_-]?me|replace[_-]?with[a-z_-]{1,40}|(?:insert|enter|put)[a-z_-]{0,40}here|[a-z_-]{1,40}[_-]goes[_-]?here)$/;

/**
 * True when `password` (a value a person chose, as written) is a template, a masked value or a
 * stand-in word as a whole (see the module doc); false for anything else, however common or short.
 * Length and host rules are the caller's.
 */
export function isPlaceholderPassword(password: string): boolean {
  if (TEMPLATE.test(password) || MASK.test(password) || /^(.)\1*$/su.test(password)) return true;
  let from = 0;
  let to = password.length;
  while (from < to && MASK_TRIM.includes(password[from]!)) from++;
  while (to > from && MASK_TRIM.includes(password[to - 1]!)) to--;
  return STAND_IN.test(password.slice(from, to).toLowerCase());
}

/** Mask characters trimmed around a stand-in word (`***REDACTED***`, `__PASSWORD__`, `-redacted-`). */
const MASK_TRIM = "*_#.…•-";
