import { signedElement, type SignedValue } from '../../domain/callback-signature.js';
import { encodeJson, wireTime } from '../format/json-codec.js';
import { encodeXml } from '../format/xml-codec.js';
import { WireList, WireTime, type Wire, type WireObject } from '../format/wire.js';

/**
 * The payloads of callbacks (docs/events.md), with Spreedly's `signed` element. Each signed value is
 * the text the payload carries for it, so a receiver recomputes the HMAC from what it parsed.
 */

/** Spreedly's signed fields of a transaction callback, those the view carries. */
export const TRANSACTION_SIGNED_FIELDS = ['amount', 'callback_url', 'created_at', 'currency_code', 'ip', 'on_test_gateway', 'order_id', 'state', 'succeeded', 'token', 'transaction_type', 'updated_at'] as const;
/** The signed fields of an event callback: every field of the event. */
export const EVENT_SIGNED_FIELDS = ['id', 'request_id', 'event_type', 'object_type', 'object_key', 'created_at'] as const;

function signedValue(value: Wire | undefined): SignedValue {
  if (value instanceof Date) return wireTime(value);
  if (value instanceof WireTime) return value.text();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return null;
}

/** `view` with its `signed` element, over the listed fields it has. */
export function withSigned(view: WireObject, fields: readonly string[], secret: string): WireObject {
  const present = fields.filter((field) => field in view);
  const values = Object.fromEntries(present.map((field) => [field, signedValue(view[field])]));
  return { ...view, signed: signedElement(secret, present, values) };
}

export function encodeCallback(format: string, root: string, body: Wire): { body: string; contentType: string } {
  return format === 'json' ? { body: encodeJson(root, body), contentType: 'application/json' } : { body: encodeXml(root, body), contentType: 'application/xml' };
}

/** A transaction callback: `transactions` with the one transaction, as Spreedly posts it. */
export function transactionCallback(format: string, view: WireObject, secret: string): { body: string; contentType: string } {
  return encodeCallback(format, 'transactions', new WireList('transaction', [withSigned(view, TRANSACTION_SIGNED_FIELDS, secret)]));
}

/** An event callback: the `event`, signed. */
export function eventCallback(format: string, view: WireObject, secret: string): { body: string; contentType: string } {
  return encodeCallback(format, 'event', withSigned(view, EVENT_SIGNED_FIELDS, secret));
}
