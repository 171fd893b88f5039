import type { PaymentMethod, StorageState } from './payment-method.js';

/**
 * The portal's card search (docs/portal.md, "Find a card"). Every key is compared against
 * what the vault keeps in the clear (masks, names, the email, the fingerprint): nothing sealed is
 * opened to search. Keys given together must all match.
 */
export interface PaymentMethodSearch {
  /** Exactly four digits: a card's last four (or a bank account's display digits). */
  lastFour?: string;
  /** Exactly six digits. */
  firstSix?: string;
  /** The cardholder's name as it starts ("first last"), compared lower-cased. */
  namePrefix?: string;
  /** The whole email, compared lower-cased. */
  email?: string;
  /** The fingerprint (hex HMAC of the number): every method of the same number. */
  fingerprint?: string;
  states?: StorageState[];
  /** One metadata key and its value (compared as text). */
  metadata?: { key: string; value: string };
  /** ISO bounds on `createdAt`: from inclusive, to exclusive. */
  createdFrom?: string;
  createdTo?: string;
  /** The `position` of the last method of the page before (newest first). */
  beforePosition?: number;
  count: number;
}

/** A method found, with where it sits (the cursor of the next page). */
export interface PaymentMethodHit {
  position: number;
  paymentMethod: PaymentMethod;
}

/**
 * A page of hits. A search by metadata alone has no index to walk: it reads at most a window of
 * the newest methods (`scanned`), and `scannedTo` is where the next window starts when the page
 * is not full yet.
 */
export interface PaymentMethodSearchPage {
  hits: PaymentMethodHit[];
  /** Set when only a window was read: the position to continue below. */
  scannedTo: number | null;
}
