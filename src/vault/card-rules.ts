/**
 * Pure rules for card and bank-account data: PAN normalisation, Luhn, brand detection, masking,
 * expiry and name handling. Brand names and masks follow what Spreedly puts on the wire
 * (`wire-reference.md` §3.2); detection follows ActiveMerchant's `CARD_COMPANY_DETECTORS`, because
 * Spreedly's own detection is ActiveMerchant's and clients compare `card_type` strings.
 */

/** Every `card_type` Coffer can report. Spreedly says `master`, never `mastercard`. */
export const CARD_TYPES = [
  'visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'maestro', 'unionpay',
  'dankort', 'elo', 'alelo', 'cabal', 'naranja', 'sodexo', 'vr', 'hipercard', 'mir',
] as const;

/** A card brand as it appears in `card_type`. */
export type CardType = (typeof CARD_TYPES)[number];

const DIGITS = /^\d+$/;

/**
 * Strips the spaces and dashes people type into card numbers ("4111 1111 1111 1111",
 * "4111-1111-1111-1111"). Anything else is returned untouched, so that validation sees the
 * stray character and reports the number invalid instead of us guessing what was meant.
 */
export function normalizePan(input: string): string {
  const stripped = input.replace(/[ -]/g, '');
  return DIGITS.test(stripped) ? stripped : input;
}

/** Luhn (mod 10) check. False for the empty string or anything that is not all ASCII digits. */
export function luhnValid(digits: string): boolean {
  if (!DIGITS.test(digits)) return false;
  let sum = 0;
  // Walk from the right: the check digit is never doubled, every second digit after it is.
  for (let i = digits.length - 1, doubled = false; i >= 0; i--, doubled = !doubled) {
    let d = digits.charCodeAt(i) - 48;
    if (doubled) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

interface PrefixRange { readonly width: number; readonly lo: number; readonly hi: number }
interface Detector { readonly type: CardType; readonly lengths: readonly number[]; readonly ranges: readonly PrefixRange[] }

/** Parses "51-55 2221-2720 6011": each item compares the PAN's first `width` digits numerically. */
function prefixes(spec: string): PrefixRange[] {
  return spec.trim().split(/\s+/).map((item) => {
    const [lo = '', hi = lo] = item.split('-');
    return { width: lo.length, lo: Number(lo), hi: Number(hi) };
  });
}

function lengths(min: number, max = min): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/**
 * Order matters: the first match wins, exactly as ActiveMerchant iterates its detector hash, so
 * ranges that overlap (Elo/Alelo BINs inside Visa's 4, Maestro's 67, Hipercard's 3841 inside Diners'
 * 38) resolve the way Spreedly resolves them. Alelo and Elo BINs that start with 4 are left out:
 * Visa always claims them first. UnionPay takes the whole 62 block (UnionPay's IIN space) rather
 * than ActiveMerchant's narrower list, and sits after the brands with specific 62xxxx BINs.
 */
const DETECTORS: readonly Detector[] = [
  { type: 'visa', lengths: [13, 16, 19], ranges: prefixes('4') },
  { type: 'master', lengths: [16], ranges: prefixes('222100-272099 510000-559999 605272 606282 637095 637568 637599-637600 637609') },
  {
    type: 'elo', lengths: [16], ranges: prefixes(`506707-506708 506715 506717-506722 506724-506736 506739-506743
      506745-506747 506753 506774-506778 509000-509007 509009-509014 509020-509030 509035-509042 509044-509089
      509091-509101 509104-509807 509831-509877 509897-509900 509918-509964 509971-509986 509995-509999 627780
      636297-636298 636368 650031-650033 650035-650051 650057-650081 650406-650439 650485-650504 650506-650538
      650552-650598 650720-650727 650901-650922 650928 650938-650939 650946-650978 651652-651704 655000-655019
      655021-655057`),
  },
  { type: 'cabal', lengths: [16], ranges: prefixes('60420100-60440099 58965700-58965799 60352200-60352299 65027200-65027299 65008700') },
  {
    type: 'alelo', lengths: [16], ranges: prefixes(`506699-506704 506706 506713-506714 506716 506749-506750 506752
      506754-506756 506758-506767 506770-506771 506773 509015-509019 509880-509882 509884-509885 509887 509987-509992`),
  },
  { type: 'discover', lengths: lengths(16, 19), ranges: prefixes('6011 644-649 65') },
  { type: 'american_express', lengths: [15], ranges: prefixes('34 37') },
  { type: 'naranja', lengths: [16], ranges: prefixes('589562') },
  { type: 'diners_club', lengths: lengths(14, 19), ranges: prefixes('300-305 36 38') },
  { type: 'jcb', lengths: lengths(16, 19), ranges: prefixes('3528-3589 3088-3094 3096-3102 3112-3120 3158-3159 3337-3349') },
  { type: 'dankort', lengths: [16], ranges: prefixes('5019') },
  {
    // Mastercard's published Maestro ranges; 67xxxx covers Spreedly's Maestro test cards.
    type: 'maestro', lengths: lengths(12, 19), ranges: prefixes(`500032-500033 501015-501016 501020-501021
      501023-501029 501038-501041 501053-501058 501060-501063 501066-501067 501091-501092 501104-501105
      501107-501108 501800-501899 502000-502099 503800-503899 561200-561269 561271-561299 561320-561356
      581700-581751 581753-581800 589300-589399 589998-591259 591261-596770 596772-598744 598746-599999
      600297-600314 600316-600335 600337-600362 600364-600382 601232-601254 601256-601276 601640-601652
      601689-601700 602011-602048 602050 630400-630499 639000-639099 670000-679999`),
  },
  { type: 'sodexo', lengths: [16], ranges: prefixes('606068-606071 603389 600818 505864-505865') },
  { type: 'vr', lengths: [16], ranges: prefixes('627416 637036') },
  { type: 'unionpay', lengths: lengths(16, 19), ranges: prefixes('62 81000000-81719999') },
  { type: 'hipercard', lengths: [16], ranges: prefixes('384100 384140 384160 637612') },
  { type: 'mir', lengths: lengths(16, 19), ranges: prefixes('2200-2204') },
];

function matches(digits: string, detector: Detector): boolean {
  if (!detector.lengths.includes(digits.length)) return false;
  return detector.ranges.some((r) => {
    const head = Number(digits.slice(0, r.width));
    return head >= r.lo && head <= r.hi;
  });
}

/** The brand of a normalised PAN by IIN range and length, or null when no brand claims it. */
export function detectCardType(digits: string): CardType | null {
  if (!DIGITS.test(digits)) return null;
  return DETECTORS.find((d) => matches(digits, d))?.type ?? null;
}

/**
 * The brand a number being typed belongs to, by its first digits alone (no length check), for
 * the card form's live feedback; null until a brand's prefix is complete.
 */
export function brandOfPrefix(digits: string): CardType | null {
  if (!DIGITS.test(digits)) return null;
  const found = DETECTORS.find((d) => d.ranges.some((r) => digits.length >= r.width && Number(digits.slice(0, r.width)) >= r.lo && Number(digits.slice(0, r.width)) <= r.hi));
  return found?.type ?? null;
}

/** The longest number a brand issues (19 when the brand is not known yet). */
export function maxPanLength(type: CardType | null): number {
  const allowed = type === null ? undefined : DETECTORS.find((d) => d.type === type)?.lengths;
  return allowed === undefined ? 19 : Math.max(...allowed);
}

/**
 * Whether the PAN's length suits its brand; with no brand, any length from 12 to 19 (ISO/IEC 7812).
 * Brand lengths matter when a caller supplies a type that detection did not produce.
 */
export function validPanLength(digits: string, type: CardType | null): boolean {
  if (!DIGITS.test(digits)) return false;
  const allowed = type === null ? undefined : DETECTORS.find((d) => d.type === type)?.lengths;
  return (allowed ?? lengths(12, 19)).includes(digits.length);
}

/** Naranja's own mod-11 check digit (ActiveMerchant validates Naranja this way, not by Luhn). */
function naranjaValid(digits: string): boolean {
  const weights = [4, 3, 2, 7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((acc, w, i) => acc + w * Number(digits[i]), 0);
  const check = 11 - (sum % 11);
  return (check > 9 ? 0 : check) === Number(digits[15]);
}

function checkDigitValid(digits: string, type: CardType | null): boolean {
  // Brands whose issuers do not use Luhn, as ActiveMerchant treats them.
  if (type === 'unionpay' || type === 'hipercard') return true;
  if (type === 'sodexo' && /^50586[45]/.test(digits)) return true;
  if (type === 'naranja') return naranjaValid(digits);
  return luhnValid(digits);
}

/** The outcome of checking a card number as a client sent it. */
export interface CardNumberCheck {
  /** The normalised number (or the raw input when it held characters other than digits, spaces, dashes). */
  digits: string;
  cardType: CardType | null;
  /** All digits, a length the brand allows, and a valid check digit. */
  valid: boolean;
}

/** Normalises, detects and validates a card number in one step. */
export function checkCardNumber(input: string): CardNumberCheck {
  const digits = normalizePan(input);
  const cardType = detectCardType(digits);
  const valid = DIGITS.test(digits) && validPanLength(digits, cardType) && checkDigitValid(digits, cardType);
  return { digits, cardType, valid };
}

/** The last four digits (all of them when shorter). */
export function lastFour(digits: string): string {
  return digits.slice(-4);
}

/** The first six digits (`first_six_digits`). */
export function firstSix(digits: string): string {
  return digits.slice(0, 6);
}

/** The first eight digits (`issuer_identification_number`). */
export function issuerIdentificationNumber(digits: string): string {
  return digits.slice(0, 8);
}

/** `XXXX-XXXX-XXXX-1111`: Spreedly shows four groups whatever the real length, so the mask leaks nothing about it. */
export function maskedNumber(digits: string): string {
  return `XXXX-XXXX-XXXX-${lastFour(digits)}`;
}

/** `XXX`/`XXXX` while a CVV of that length is held; `''` when none is (null or 0). */
export function maskedVerificationValue(length: number | null): string {
  return length !== null && Number.isInteger(length) && length > 0 ? 'X'.repeat(length) : '';
}

/** A calendar month, 1..12. */
export function isValidMonth(m: number): boolean {
  return Number.isInteger(m) && m >= 1 && m <= 12;
}

/**
 * A four-digit year from 1900 to 2199. Past years are allowed on purpose: an expired card is a
 * separate error (`errors.expired`, waivable with `allow_expired_date`), not an invalid year.
 */
export function isValidYear(y: number): boolean {
  return Number.isInteger(y) && y >= 1900 && y <= 2199;
}

/**
 * A card is good through the last day of its expiry month, judged in UTC so the answer does not
 * depend on the server's zone: it is expired from the first instant of the following month.
 */
export function isExpired(month: number, year: number, now: Date): boolean {
  const firstOfNextMonth = new Date(0);
  // setUTCFullYear (unlike Date.UTC) leaves years 0..99 alone; month is 1-based so it already points past expiry.
  firstOfNextMonth.setUTCFullYear(year, month, 1);
  return now.getTime() >= firstOfNextMonth.getTime();
}

function cleanName(name: string | null | undefined): string | null {
  const cleaned = (name ?? '').trim().replace(/\s+/g, ' ');
  return cleaned === '' ? null : cleaned;
}

/** Splits `full_name` on its last space, as Spreedly does ("Jean Luc Picard" → "Jean Luc" / "Picard"). */
export function splitFullName(full: string): { firstName: string | null; lastName: string | null } {
  const name = cleanName(full);
  if (name === null) return { firstName: null, lastName: null };
  const at = name.lastIndexOf(' ');
  if (at < 0) return { firstName: name, lastName: null };
  return { firstName: name.slice(0, at), lastName: name.slice(at + 1) };
}

/** `full_name` from its parts, skipping blank ones; null when both are blank. */
export function joinFullName(first: string | null | undefined, last: string | null | undefined): string | null {
  const parts = [cleanName(first), cleanName(last)].filter((p): p is string => p !== null);
  return parts.length === 0 ? null : parts.join(' ');
}

/** `routing_number_display_digits`: the first three. */
export function routingDisplayDigits(routing: string): string {
  return routing.slice(0, 3);
}

/** `account_number_display_digits`: the last four. */
export function accountDisplayDigits(account: string): string {
  return account.slice(-4);
}

/** `routing_number` as shown, e.g. `021*`. */
export function maskedRoutingNumber(routing: string): string {
  return `${routingDisplayDigits(routing)}*`;
}

/** `account_number` as shown, e.g. `*4321`. */
export function maskedAccountNumber(account: string): string {
  return `*${accountDisplayDigits(account)}`;
}

/** A US ABA routing number: nine digits whose weighted sum (3,7,1 repeating) is a multiple of 10. */
export function validRoutingNumber(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const d = Array.from(digits, Number) as [number, number, number, number, number, number, number, number, number];
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0;
}

/** A bank account number: 4 to 17 digits (the NACHA field width). */
export function validAccountNumber(digits: string): boolean {
  return /^\d{4,17}$/.test(digits);
}
