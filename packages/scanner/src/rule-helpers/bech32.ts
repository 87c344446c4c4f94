/**
 * Bech32 (BIP 173) checksum, used by age secret keys (`AGE-SECRET-KEY-1…`, age spec
 * https://age-encryption.org/v1, "X25519 recipient type": the identity is Bech32 with HRP
 * `AGE-SECRET-KEY-`, upper-cased). Pure functions over strings.
 */
export const BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

function polymod(values: readonly number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ gen[i]!) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (const c of hrp) out.push(c.charCodeAt(0) >>> 5);
  out.push(0);
  for (const c of hrp) out.push(c.charCodeAt(0) & 31);
  return out;
}

/**
 * True when `s` (HRP + "1" + data + 6-char checksum, any single case) has a valid Bech32
 * checksum. Returns false for mixed case or characters outside the Bech32 alphabet.
 */
export function hasValidBech32Checksum(s: string): boolean {
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) return false;
  const lower = s.toLowerCase();
  const sep = lower.lastIndexOf("1");
  if (sep < 1 || sep + 7 > lower.length) return false;
  const data: number[] = [];
  for (const c of lower.slice(sep + 1)) {
    const v = BECH32_CHARSET.indexOf(c);
    if (v === -1) return false;
    data.push(v);
  }
  return polymod([...hrpExpand(lower.slice(0, sep)), ...data]) === 1;
}

/** Encodes 5-bit `data` words with `hrp` (lower case) and appends the Bech32 checksum. */
export function bech32Encode(hrp: string, data: readonly number[]): string {
  const lowerHrp = hrp.toLowerCase();
  const mod = polymod([...hrpExpand(lowerHrp), ...data, 0, 0, 0, 0, 0, 0]) ^ 1;
  let out = lowerHrp + "1";
  for (const d of data) out += BECH32_CHARSET[d];
  for (let i = 0; i < 6; i++) out += BECH32_CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return out;
}
