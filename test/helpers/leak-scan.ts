import { luhnValid } from '../../src/vault/card-rules.js';
import { TEST_CARDS } from '../../src/domain/test-cards.js';

/**
 * Finds card data written in clear: the leak guard of the test helpers (every response, every
 * log line, the SQLite files) and the at-rest suites use it.
 *
 * What counts as card data:
 * - any known test PAN (src/domain/test-cards.ts) or extra known secret, anywhere in the text;
 * - any run of 13–19 digits that passes Luhn and is delimited by non-alphanumerics (so hex
 *   fingerprints, tokens and base64 blobs that happen to hold digits do not count);
 * - the same written in groups separated by spaces or dashes (`4111 1111 1111 1111`,
 *   `4111-1111-1111-1111`, `3782 822463 10005`).
 *
 * A bare run starting with 0 or 1 is not taken for a card: no card brand's numbers start with
 * 0 and, of those starting with 1, only UATP's; but epoch timestamps in ms / µs / ns (13, 16 and
 * 19 digits starting with 1 until the year 2286, e.g. pino's `"time":1718000000000`) would
 * otherwise pass Luhn one time in ten. Known PANs are matched whatever they start with.
 */

/** Every test card number, digits only. */
export const KNOWN_TEST_PANS: readonly string[] = Object.freeze(TEST_CARDS.map((card) => card.number));

const BARE_RUN = /(?<![0-9A-Za-z])\d{13,19}(?![0-9A-Za-z])/g;
/**
 * Groups of digits, one separator kind throughout: a first group of four, then two to four more
 * of 3–6 digits. Not when it continues a longer digit chain (a UUID's groups, a phone list).
 */
const GROUPED_RUN = /(?<![0-9A-Za-z])(?<!\d[ -])\d{4}([ -])\d{3,6}(?:\1\d{3,6}){1,3}(?![0-9A-Za-z])(?![ -]\d)/g;

function looksLikePan(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

/** The longest window of whole groups that reads as a PAN (groups of a chain may hold one). */
function panInGroups(groups: string[], separator: string): string | null {
  for (let size = groups.length; size >= 2; size -= 1) {
    for (let start = 0; start + size <= groups.length; start += 1) {
      const window = groups.slice(start, start + size);
      if (looksLikePan(window.join(''))) return window.join(separator);
    }
  }
  return null;
}

/**
 * Offending matches in `text`, each once, in order of discovery: known PANs and `knownSecrets`
 * in clear, then Luhn-valid digit runs. Empty when the text is clean.
 */
export function findCardData(text: string, knownSecrets: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const secret of [...KNOWN_TEST_PANS, ...knownSecrets]) {
    if (secret !== '' && text.includes(secret)) found.add(secret);
  }
  for (const match of text.matchAll(BARE_RUN)) {
    const digits = match[0];
    if (digits[0] === '0' || digits[0] === '1') continue;
    if (looksLikePan(digits)) found.add(digits);
  }
  for (const match of text.matchAll(GROUPED_RUN)) {
    const separator = match[1] as string;
    const pan = panInGroups(match[0].split(separator), separator);
    if (pan !== null) found.add(pan);
  }
  return [...found];
}

/**
 * A finding as it may be printed: digits keep the first six and last four (what PCI DSS allows
 * to be shown), other secrets their first three characters; everything else becomes `*`.
 */
export function maskFinding(finding: string): string {
  const digits = finding.replace(/\D/g, '');
  if (digits.length >= 13 && /^[\d -]+$/.test(finding)) {
    let seen = 0;
    return finding.replace(/\d/g, (digit) => {
      seen += 1;
      return seen <= 6 || seen > digits.length - 4 ? digit : '*';
    });
  }
  return `${finding.slice(0, 3)}${'*'.repeat(Math.max(finding.length - 3, 3))}`;
}

/** `text` with every finding masked (for error messages quoting a request path or a log line). */
export function maskCardData(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  for (const finding of findCardData(text, knownSecrets).sort((a, b) => b.length - a.length)) {
    out = out.split(finding).join(maskFinding(finding));
  }
  return out;
}

/** Throws naming `where` and the masked findings when `text` holds card data. */
export function assertNoCardData(text: string, where: string, knownSecrets: readonly string[] = []): void {
  const found = findCardData(text, knownSecrets);
  if (found.length > 0) {
    throw new CardDataLeakError(`card data in clear in ${where}: ${found.map(maskFinding).join(', ')}`);
  }
}

export class CardDataLeakError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardDataLeakError';
  }
}

/**
 * Known test PANs present in a binary file's bytes (read as latin1, so every byte is one
 * character and ASCII digits stay themselves), plus any extra secrets.
 */
export function findKnownSecretsInBytes(bytes: Buffer, knownSecrets: readonly string[] = []): string[] {
  return [...KNOWN_TEST_PANS, ...knownSecrets].filter((secret) => secret !== '' && bytes.includes(Buffer.from(secret, 'latin1')));
}
