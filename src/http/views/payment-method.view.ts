import { parseDetails, type Details } from '../../services/payment-method-records.js';
import { joinFullName, maskedNumber, maskedVerificationValue } from '../../vault/card-rules.js';
import { WireErrors, type Wire, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { PaymentMethod } from '../../domain/payment-method.js';

function value(details: Details, field: string): Wire {
  return details[field] ?? null;
}

function freeForm(json: string | null): Wire {
  return json === null ? null : (JSON.parse(json) as Wire);
}

/** The fields every payment method starts with; creditCard writes them out in its own literal. */
function common(row: PaymentMethod): WireObject {
  return {
    token: row.token,
    created_at: storedDate(row.created_at),
    updated_at: storedDate(row.updated_at),
    email: row.email,
    data: freeForm(row.data),
    storage_state: row.storage_state,
    test: row.test === 1,
    metadata: freeForm(row.metadata),
    callback_url: row.callback_url,
  };
}

/**
 * One object literal in wire order, the common fields written out too: V8 gives it a fixed shape.
 * The version that added the address and shipping fields in loops made a dictionary-mode object,
 * and spreading that into the common fields cost most of a list page (~60 % of the
 * page's views); assigning these 30 fields onto `common(row)` still left a dictionary-mode object,
 * slower to build and to write (docs/benchmarks.md). Cards are nearly every payment method.
 */
function creditCard(row: PaymentMethod, details: Details): WireObject {
  const redacted = row.storage_state === 'redacted';
  return {
    // The fields of common(row), in its order.
    token: row.token,
    created_at: storedDate(row.created_at),
    updated_at: storedDate(row.updated_at),
    email: row.email,
    data: freeForm(row.data),
    storage_state: row.storage_state,
    test: row.test === 1,
    metadata: freeForm(row.metadata),
    callback_url: row.callback_url,
    last_four_digits: value(details, 'last_four_digits'),
    first_six_digits: redacted ? null : value(details, 'first_six_digits'),
    card_type: value(details, 'card_type'),
    first_name: value(details, 'first_name'),
    last_name: value(details, 'last_name'),
    month: value(details, 'month'),
    year: value(details, 'year'),
    address1: value(details, 'address1'),
    address2: value(details, 'address2'),
    city: value(details, 'city'),
    state: value(details, 'state'),
    zip: value(details, 'zip'),
    country: value(details, 'country'),
    phone_number: value(details, 'phone_number'),
    company: value(details, 'company'),
    full_name: joinFullName(details.first_name as string | null, details.last_name as string | null),
    eligible_for_card_updater: value(details, 'eligible_for_card_updater'),
    shipping_address1: value(details, 'shipping_address1'),
    shipping_address2: value(details, 'shipping_address2'),
    shipping_city: value(details, 'shipping_city'),
    shipping_state: value(details, 'shipping_state'),
    shipping_zip: value(details, 'shipping_zip'),
    shipping_country: value(details, 'shipping_country'),
    shipping_phone_number: value(details, 'shipping_phone_number'),
    issuer_identification_number: redacted ? null : value(details, 'issuer_identification_number'),
    payment_method_type: 'credit_card',
    errors: new WireErrors([]),
    fingerprint: row.fingerprint,
    verification_value: maskedVerificationValue(row.sealed_cvv === null ? null : row.cvv_length),
    // The only PAN-derived outputs anywhere: this mask, the first six / eight and the last four.
    number: redacted ? '' : maskedNumber(String(details.last_four_digits ?? '')),
  };
}

function bankAccount(row: PaymentMethod, details: Details): WireObject {
  const routing = row.storage_state === 'redacted' ? null : (details.routing_number_display_digits as string | null);
  const account = details.account_number_display_digits as string | null;
  return {
    full_name: joinFullName(details.first_name as string | null, details.last_name as string | null),
    bank_name: value(details, 'bank_name'),
    account_type: value(details, 'account_type'),
    account_holder_type: value(details, 'account_holder_type'),
    routing_number_display_digits: routing,
    account_number_display_digits: account,
    first_name: value(details, 'first_name'),
    last_name: value(details, 'last_name'),
    payment_method_type: 'bank_account',
    errors: new WireErrors([]),
    routing_number: routing === null ? null : `${routing}*`,
    account_number: account === null ? null : `*${account}`,
  };
}

function thirdPartyToken(details: Details): WireObject {
  return {
    gateway_type: value(details, 'gateway_type'),
    third_party_token: value(details, 'third_party_token'),
    payment_method_type: 'third_party_token',
    errors: new WireErrors([]),
  };
}

/** A payment method, fields in the order of wire-reference §3.2; masks only, never a number. */
export function paymentMethodView(row: PaymentMethod): WireObject {
  const details = parseDetails(row);
  if (row.payment_method_type === 'credit_card') return creditCard(row, details);
  const specific =
    row.payment_method_type === 'bank_account'
      ? bankAccount(row, details)
      : row.payment_method_type === 'sprel'
        ? { payment_method_type: 'sprel', errors: new WireErrors([]) }
        : thirdPartyToken(details);
  // Object.assign onto the common fields keeps the wire order and is several times cheaper than a spread.
  return Object.assign(common(row), specific);
}
