import { CARD_ADDRESS_FIELDS, CARD_SHIPPING_FIELDS } from '../domain/payment-method.js';
import { joinFullName } from '../vault/card-rules.js';

/**
 * The variables a delivery or export template sees (wire-reference §7, Spreedly's "receiver
 * variables"): one set per payment method type, plus the receiver's credentials by name.
 */

/** A vaulted payment method opened for one delivery. */
export interface DeliverySubject {
  token: string;
  paymentMethodType: 'credit_card' | 'bank_account' | 'third_party_token';
  createdAt: string;
  updatedAt: string;
  email: string | null;
  /** Non-sensitive fields as stored (first_name, last_name, full_name, month, year, card_type, address1, …). */
  fields: Record<string, unknown>;
  /** Plaintext secrets opened by the vault; absent when redacted/dropped. */
  number?: string;
  verificationValue?: string;
  routingNumber?: string;
  accountNumber?: string;
}

/** A template variable's value: mustache renders null as nothing. */
export type TemplateValue = string | number | null;

/** The view of one payment method, by variable name. */
export type DeliveryVariables = Record<string, TemplateValue>;

function text(value: unknown): TemplateValue {
  if (typeof value === 'string' || typeof value === 'number') return value;
  return null;
}

/** Spreedly shows timestamps in templates as "2016-07-13 14:14:03 UTC". */
function templateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** YYYY-MM-01, or null when the card has no complete expiry. */
function expirationDate(month: unknown, year: unknown): string | null {
  const m = Number(month);
  const y = Number(year);
  if (!Number.isInteger(m) || !Number.isInteger(y) || m < 1 || m > 12 || y < 1) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
}

function fullName(fields: Record<string, unknown>): string | null {
  if (typeof fields.full_name === 'string' && fields.full_name !== '') return fields.full_name;
  return joinFullName(fields.first_name as string | null | undefined, fields.last_name as string | null | undefined);
}

function creditCardVariables(subject: DeliverySubject): DeliveryVariables {
  const { fields } = subject;
  const digits = subject.number;
  const variables: DeliveryVariables = {
    credit_card_token: subject.token,
    credit_card_number: digits ?? null,
    credit_card_verification_value: subject.verificationValue ?? null,
    credit_card_first_name: text(fields.first_name),
    credit_card_last_name: text(fields.last_name),
    credit_card_full_name: fullName(fields),
    credit_card_month: text(fields.month),
    credit_card_year: text(fields.year),
    credit_card_expiration_date: expirationDate(fields.month, fields.year),
    credit_card_created_at: templateTime(subject.createdAt),
    credit_card_updated_at: templateTime(subject.updatedAt),
    credit_card_type: text(fields.card_type),
    credit_card_email: subject.email,
    // From the number when it is open, else what the vault kept (the last four survive redaction).
    credit_card_last_four_digits: digits !== undefined ? digits.slice(-4) : text(fields.last_four_digits),
    credit_card_first_six_digits: digits !== undefined ? digits.slice(0, 6) : text(fields.first_six_digits),
  };
  for (const field of [...CARD_ADDRESS_FIELDS, ...CARD_SHIPPING_FIELDS]) variables[`credit_card_${field}`] = text(fields[field]);
  return variables;
}

function bankAccountVariables(subject: DeliverySubject): DeliveryVariables {
  const { fields } = subject;
  return {
    bank_account_token: subject.token,
    bank_account_routing_number: subject.routingNumber ?? null,
    bank_account_account_number: subject.accountNumber ?? null,
    bank_account_first_name: text(fields.first_name),
    bank_account_last_name: text(fields.last_name),
    bank_account_full_name: fullName(fields),
    bank_account_account_type: text(fields.account_type),
    bank_account_account_holder_type: text(fields.account_holder_type),
    bank_account_bank_name: text(fields.bank_name),
    bank_account_email: subject.email,
    bank_account_created_at: templateTime(subject.createdAt),
    bank_account_updated_at: templateTime(subject.updatedAt),
  };
}

function thirdPartyTokenVariables(subject: DeliverySubject): DeliveryVariables {
  const { fields } = subject;
  return {
    third_party_token_token: subject.token,
    third_party_token_reference: text(fields.third_party_token ?? fields.reference),
    third_party_token_gateway_type: text(fields.gateway_type),
    third_party_token_email: subject.email,
    third_party_token_created_at: templateTime(subject.createdAt),
    third_party_token_updated_at: templateTime(subject.updatedAt),
  };
}

/** The variables of one payment method, without credentials. */
export function subjectVariables(subject: DeliverySubject): DeliveryVariables {
  const own =
    subject.paymentMethodType === 'credit_card'
      ? creditCardVariables(subject)
      : subject.paymentMethodType === 'bank_account'
        ? bankAccountVariables(subject)
        : thirdPartyTokenVariables(subject);
  return { payment_method_token: subject.token, ...own };
}

/**
 * The view of a delivery: the payment method's variables and the receiver's credentials by name.
 * Credentials come first so that a credential named like a variable (`credit_card_number`) can
 * never replace the card's value.
 */
export function deliveryVariables(subject: DeliverySubject, credentials: Record<string, string>): DeliveryVariables {
  return { ...credentials, ...subjectVariables(subject) };
}

const SAMPLE_TIME = '2000-01-01T00:00:00Z';

/** Every variable name of every payment method type. */
const VARIABLE_NAMES: ReadonlySet<string> = new Set(
  (['credit_card', 'bank_account', 'third_party_token'] as const).flatMap((paymentMethodType) =>
    Object.keys(subjectVariables({ token: '', paymentMethodType, createdAt: SAMPLE_TIME, updatedAt: SAMPLE_TIME, email: null, fields: {} })),
  ),
);

/**
 * The view of an SFTP batch file: `{{#payment_methods}}…{{/payment_methods}}` plus credentials.
 * Inside the section a name the current payment method lacks (a card variable on a bank account)
 * is looked up in the enclosing view, so credentials named like any variable are left out.
 */
export function exportVariables(
  subjects: readonly DeliverySubject[],
  credentials: Record<string, string>,
): Record<string, TemplateValue | DeliveryVariables[]> {
  const safe = Object.fromEntries(Object.entries(credentials).filter(([name]) => !VARIABLE_NAMES.has(name) && name !== 'payment_methods'));
  return { ...safe, payment_methods: subjects.map(subjectVariables) };
}
