/**
 * Makes PGlite return text exactly as stored: a value starting with U+FEFF (the byte order mark a
 * Windows editor writes at the start of a UTF-8 file) keeps it.
 *
 * PGlite (checked with 0.5.17) decodes each text field of a result with `new TextDecoder("utf-8")`,
 * whose WHATWG default (`ignoreBOM: false`) drops one leading U+FEFF of every decoded field. A note
 * saved by Notepad then came back 3 bytes short of its stored size and sha256 (a teammate's client
 * refused it as corrupt, for good), and a path "\uFEFFa.md" read back as "a.md". PostgreSQL through
 * `pg` decodes with Buffer#toString, which keeps it.
 *
 * PGlite makes that decoder inside its bundled wire-protocol reader (again after every failed query)
 * and has no option for it, so the one hook is the global constructor. `keepLeadingBomInPglite()`
 * replaces `globalThis.TextDecoder` by a subclass that changes exactly the call PGlite makes,
 * `new TextDecoder("utf-8")` with no options, to `{ ignoreBOM: true }`; every other call (any call with
 * options: all of teammem's own, which say `fatal` / `ignoreBOM` explicitly) is the native decoder's.
 * Idempotent; call it before the first `PGlite.create`.
 */
const marker = Symbol.for("teammem.keepLeadingBom");

export function keepLeadingBomInPglite(): void {
  const Native = globalThis.TextDecoder as typeof TextDecoder & { [marker]?: true };
  if (Native[marker]) return;
  class BomKeepingTextDecoder extends Native {
    static override readonly [marker] = true as const;
    constructor(label?: string, options?: ConstructorParameters<typeof TextDecoder>[1]) {
      super(label, options === undefined && label === "utf-8" ? { ignoreBOM: true } : options);
    }
  }
  globalThis.TextDecoder = BomKeepingTextDecoder;
}
