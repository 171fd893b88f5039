import { z } from 'zod';
import { CARD_TEXT_FIELDS, PAYMENT_METHOD_TYPES, type PaymentMethodCreateInput, type PaymentMethodUpdateInput } from '../../domain/payment-method.js';
import { flag, freeForm, integer, parseInput, text } from '../validation.js';

const cardText = Object.fromEntries(CARD_TEXT_FIELDS.map((field) => [field, text(255)])) as Record<(typeof CARD_TEXT_FIELDS)[number], ReturnType<typeof text>>;

const creditCardSchema = z.object({
  ...cardText,
  number: text(64),
  verification_value: text(16),
  full_name: text(255),
  month: integer(),
  year: integer(),
  eligible_for_card_updater: flag(),
  // ActiveMerchant sends the email inside credit_card.
  email: text(255),
});

const bankAccountSchema = z.object({
  first_name: text(255),
  last_name: text(255),
  full_name: text(255),
  bank_name: text(255),
  bank_routing_number: text(32),
  bank_account_number: text(32),
  bank_account_type: text(32),
  bank_account_holder_type: text(32),
});

/**
 * `apple_pay{payment_data, test_card_number}` / `google_pay{…}` (wire-reference §2.1): the wallet's
 * payment data as an object or its JSON text (XML clients send the text), bounded like free-form data.
 */
const walletSchema = z.object({
  payment_data: freeForm().optional(),
  test_card_number: text(32),
});

const allowances = {
  allow_blank_name: flag(),
  allow_expired_date: flag(),
  allow_blank_date: flag(),
};

export const createSchema = z.object({
  payment_method_type: text(64),
  credit_card: creditCardSchema.optional(),
  bank_account: bankAccountSchema.optional(),
  apple_pay: walletSchema.optional(),
  google_pay: walletSchema.optional(),
  reference: text(1000),
  gateway_type: text(100),
  email: text(255),
  data: freeForm().optional(),
  metadata: freeForm().optional(),
  callback_url: text(2000),
  retained: flag(),
  single_use: flag(),
  // The npm client sends it beside credit_card rather than inside (docs/wire-compatibility.md).
  eligible_for_card_updater: flag(),
  ...allowances,
});

function allowancesOf(parsed: { allow_blank_name?: boolean | undefined; allow_expired_date?: boolean | undefined; allow_blank_date?: boolean | undefined }) {
  return {
    allowBlankName: parsed.allow_blank_name === true,
    allowExpiredDate: parsed.allow_expired_date === true,
    allowBlankDate: parsed.allow_blank_date === true,
  };
}

/** `POST payment_methods`: which kind (explicit, or by the nested object sent) and its fields. */
export function parseCreate(fields: Record<string, unknown>): PaymentMethodCreateInput {
  const parsed = parseInput(createSchema, fields);
  const declared = (PAYMENT_METHOD_TYPES as readonly string[]).includes(parsed.payment_method_type ?? '') ? parsed.payment_method_type : undefined;
  const nestedType =
    parsed.credit_card !== undefined ? 'credit_card' : parsed.bank_account !== undefined ? 'bank_account' : parsed.apple_pay !== undefined ? 'apple_pay' : parsed.google_pay !== undefined ? 'google_pay' : null;
  const type = (declared ?? nestedType) as PaymentMethodCreateInput['type'];
  const wallet = type === 'apple_pay' ? parsed.apple_pay : type === 'google_pay' ? parsed.google_pay : undefined;
  const { email: cardEmail, ...nestedCard } = parsed.credit_card ?? {};
  // The flag inside credit_card wins over the top-level one when a client sends both.
  const card = nestedCard.eligible_for_card_updater === undefined && parsed.eligible_for_card_updater !== undefined
    ? { ...nestedCard, eligible_for_card_updater: parsed.eligible_for_card_updater }
    : nestedCard;
  return {
    type,
    ...(parsed.credit_card === undefined ? {} : { card }),
    ...(parsed.bank_account === undefined ? {} : { bankAccount: parsed.bank_account }),
    thirdParty: { reference: parsed.reference, gateway_type: parsed.gateway_type },
    ...(wallet === undefined ? {} : { wallet: { paymentData: wallet.payment_data, testCardNumber: wallet.test_card_number } }),
    email: parsed.email ?? cardEmail,
    data: parsed.data,
    metadata: parsed.metadata,
    callbackUrl: parsed.callback_url,
    retained: parsed.retained === true,
    singleUse: parsed.single_use,
    ...allowancesOf(parsed),
  };
}

const UPDATABLE_TEXT = [...CARD_TEXT_FIELDS, 'full_name', 'bank_name', 'bank_account_type', 'bank_account_holder_type'] as const;

const NAME_FIELDS = ['first_name', 'last_name', 'full_name'] as const;

export const updateSchema = z.object({
  ...Object.fromEntries(UPDATABLE_TEXT.map((field) => [field, text(255)])),
  month: integer(),
  year: integer(),
  eligible_for_card_updater: flag(),
  email: text(255),
  data: freeForm().optional(),
  metadata: freeForm().optional(),
  callback_url: text(2000),
  ...allowances,
});

/** `PUT payment_methods/<t>`: fields flat under payment_method (the gem) or inside credit_card (others). */
export function parseUpdate(fields: Record<string, unknown>, emptyElements: readonly string[] = []): PaymentMethodUpdateInput {
  const nested = fields.credit_card ?? fields.bank_account;
  const merged = nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? { ...fields, ...(nested as Record<string, unknown>) } : fields;
  const parsed = parseInput(updateSchema, merged) as Record<string, unknown> & z.output<typeof updateSchema>;
  const textFields: PaymentMethodUpdateInput['fields'] = {};
  for (const field of UPDATABLE_TEXT) {
    const value = parsed[field];
    if (typeof value === 'string') textFields[field] = value;
  }
  // A name sent empty is a change (to blank, then validated), unlike an absent one (docs/wire-compatibility.md).
  for (const field of NAME_FIELDS) {
    const raw = merged[field];
    const sentEmpty = [field, `credit_card.${field}`, `bank_account.${field}`].some((name) => emptyElements.includes(name));
    if (sentEmpty || (field in merged && (raw === null || (typeof raw === 'string' && raw.trim() === '')))) textFields[field] = '';
  }
  return {
    fields: textFields,
    month: parsed.month,
    year: parsed.year,
    eligibleForCardUpdater: parsed.eligible_for_card_updater,
    email: parsed.email,
    data: parsed.data,
    metadata: parsed.metadata,
    callbackUrl: parsed.callback_url,
    ...allowancesOf(parsed),
  };
}

export const recacheSchema = z.object({ credit_card: z.object({ verification_value: text(16) }).optional(), verification_value: text(16) });

/** `recache`: the new CVV, under credit_card (or flat). */
export function parseRecache(fields: Record<string, unknown>): string | undefined {
  const parsed = parseInput(recacheSchema, fields);
  return parsed.credit_card?.verification_value ?? parsed.verification_value;
}

export const redactSchema = z.object({ remove_from_gateway: text(100), remove_personal_data: flag() });

/** `redact`: optional `transaction{remove_from_gateway, remove_personal_data}`. */
export function parseRedact(fields: Record<string, unknown>): { removeFromGateway: string | undefined; removePersonalData: boolean } {
  const parsed = parseInput(redactSchema, fields);
  return { removeFromGateway: parsed.remove_from_gateway, removePersonalData: parsed.remove_personal_data === true };
}
