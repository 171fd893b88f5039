/**
 * The messages between the merchant's page (the `Spreedly` script), the number frame and the
 * CVV frame. Every message carries the form's channel id; receivers also check the sender's
 * exact origin and window before reading anything else.
 */

export const PROTOCOL = 'coffer-iframe-v1';

export type FieldName = 'number' | 'cvv';

/** What a frame reports about its input: lengths, brand and validity, never the value. */
export interface InputProperties {
  cardType?: string;
  validNumber?: boolean;
  numberLength?: number;
  validCvv?: boolean;
  cvvLength?: number;
}

/** An error as the API renders it. */
export interface ApiError {
  key: string;
  message: string;
  attribute?: string;
}

export interface Envelope {
  protocol: typeof PROTOCOL;
  channel: string;
  type: string;
  [field: string]: unknown;
}

export function isEnvelope(data: unknown, channel: string): data is Envelope {
  if (data === null || typeof data !== 'object') return false;
  const envelope = data as Partial<Envelope>;
  return envelope.protocol === PROTOCOL && envelope.channel === channel && typeof envelope.type === 'string';
}

/** The frame names the parent gives each frame, so the frames can find each other. */
export function frameName(field: FieldName, channel: string): string {
  return `coffer-${field}-${channel}`;
}
