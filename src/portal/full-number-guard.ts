import { AppError } from '../domain/errors.js';
import { containsCardLike } from '../domain/scrubbing/card-like.js';

/**
 * What a search box answers when a full card number is typed into it: the value is neither
 * searched for, echoed, logged nor put in a URL (docs/portal.md, "Find a card"; docs/security.md:
 * errors never echo what was submitted).
 */
export const FULL_NUMBER_REFUSED =
  'A full card number cannot be searched for, and what you typed was not kept. Search by the last four digits, the first six, the cardholder name or the email instead.';

/** 13 or more digits in a row, single spaces, dots or dashes allowed between them: a whole card number, valid or not. */
const LONG_NUMBER = /\d(?:[ .-]?\d){12,}/;

/** True when `text` holds a full card number: 13+ digits (Luhn-valid or not), or a card-like number the scrubber finds. */
export function holdsFullNumber(text: string): boolean {
  return LONG_NUMBER.test(text) || containsCardLike(text);
}

/** True when the whole of `text` is a number of 13–19 digits (spaces, dots and dashes aside). */
export function isWholeNumber(text: string): boolean {
  const digits = text.replace(/[\s.-]/g, '');
  return /^\d{13,19}$/.test(digits);
}

/** The refusal, naming the box (its label) but never its value. */
export function fullNumberRefused(label: string): AppError {
  return new AppError({ key: 'errors.invalid', attribute: label, message: `${label}: ${FULL_NUMBER_REFUSED}` });
}
