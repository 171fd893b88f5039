/**
 * The script of a card-form frame (number or CVV), served by Coffer inside a cross-origin
 * iframe. It owns its input: the value never leaves this frame except in the tokenization
 * request to Coffer (the number frame, with the CVV handed over by its sibling frame). The
 * parent page only ever receives lengths, the brand, validity and the resulting token.
 */
import { brandOfPrefix, checkCardNumber, maxPanLength } from '../../vault/card-rules.js';
import { frameName, isEnvelope, PROTOCOL, type ApiError, type Envelope, type FieldName, type InputProperties } from './protocol.js';

type NumberFormat = 'prettyFormat' | 'plainFormat' | 'maskedFormat';

const data = document.body.dataset;
const parentOrigin = data.parentOrigin ?? '';
const channel = data.channel ?? '';

function toParent(type: string, fields: Record<string, unknown> = {}): void {
  window.parent.postMessage({ protocol: PROTOCOL, channel, type, ...fields }, parentOrigin);
}

/** A sibling frame, found by the name the parent gave it (named access works across origins). */
function siblingWindow(field: FieldName): Window | null {
  try {
    return (window.parent as unknown as Record<string, Window | undefined>)[frameName(field, channel)] ?? null;
  } catch {
    return null;
  }
}

function groupsFor(cardType: string | null): number[] {
  if (cardType === 'american_express') return [4, 6, 5];
  if (cardType === 'diners_club') return [4, 6, 4];
  return [4, 4, 4, 4, 3];
}

function pretty(digits: string, cardType: string | null): string {
  const parts: string[] = [];
  let at = 0;
  for (const size of groupsFor(cardType)) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(' ');
}

/** Recache mode (`Spreedly.setRecache`): the vaulted card the CVV is for, shown masked. */
interface Recache {
  token: string;
  cardType: string | undefined;
  lastFour: string;
}

/**
 * Posts a card-form request to Coffer (this frame's own origin), for this frame's environment, and
 * hands the answer's payment method to `done`, or the API's errors to the page.
 */
async function send(path: string, body: unknown, done: (paymentMethod: { token: string } & Record<string, unknown>) => void, failure: string): Promise<void> {
  try {
    const response = await fetch(`${path}?environment_key=${encodeURIComponent(data.environmentKey ?? '')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    });
    const answer = (await response.json()) as { transaction?: { payment_method?: { token?: string } & Record<string, unknown> }; errors?: ApiError[] };
    const paymentMethod = answer.transaction?.payment_method;
    if (response.ok && typeof paymentMethod?.token === 'string') done(paymentMethod as { token: string } & Record<string, unknown>);
    else toParent('errors', { errors: answer.errors ?? [{ key: 'errors.internal', message: failure }] });
  } catch {
    toParent('errors', { errors: [{ key: 'errors.service_unavailable', message: 'Unable to reach the card vault. Please try again.' }] });
  }
}

function runField(field: FieldName, input: HTMLInputElement): void {
  let digits = '';
  let format: NumberFormat = 'prettyFormat';
  let focused = false;
  let recacheOf: Recache | null = null;

  const cardType = () => (field === 'number' ? brandOfPrefix(digits) : null);
  const properties = (): InputProperties => {
    if (field === 'cvv') return { cvvLength: digits.length };
    if (recacheOf !== null) return { cardType: recacheOf.cardType, validNumber: true, numberLength: 0 };
    const type = cardType();
    return { cardType: type ?? undefined, validNumber: digits.length > 0 && checkCardNumber(digits).valid, numberLength: digits.length };
  };

  const display = (): string => {
    if (field === 'cvv') return digits;
    if (recacheOf !== null) return recacheOf.lastFour === '' ? '•••• •••• ••••' : `•••• •••• •••• ${recacheOf.lastFour}`;
    if (format === 'maskedFormat' && !focused && digits.length > 4) return `${'•'.repeat(digits.length - 4)}${digits.slice(-4)}`;
    return format === 'plainFormat' ? digits : pretty(digits, cardType());
  };

  const fieldEvent = (type: string): void => {
    toParent('fieldEvent', { name: field, eventType: type, activeElement: focused ? field : '', properties: properties() });
  };

  input.addEventListener('input', () => {
    const max = field === 'cvv' ? 4 : maxPanLength(brandOfPrefix(input.value.replace(/\D/g, '')));
    digits = input.value.replace(/\D/g, '').slice(0, max);
    const shown = display();
    if (input.value !== shown) input.value = shown;
    fieldEvent('input');
  });
  input.addEventListener('focus', () => {
    focused = true;
    input.value = display();
    fieldEvent('focus');
  });
  input.addEventListener('blur', () => {
    focused = false;
    input.value = display();
    fieldEvent('blur');
  });
  input.addEventListener('mouseover', () => fieldEvent('mouseover'));
  input.addEventListener('mouseout', () => fieldEvent('mouseout'));
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') fieldEvent('enter');
    else if (event.key === 'Escape') fieldEvent('escape');
    else if (event.key === 'Tab') fieldEvent(event.shiftKey ? 'shiftTab' : 'tab');
  });

  /** CVV requests from the number frame, answered only to that exact sibling. */
  const pendingCvv = new Map<string, (value: string) => void>();

  const siblingCvv = (): Promise<string> =>
    new Promise<string>((resolve) => {
      const sibling = siblingWindow('cvv');
      if (sibling === null) return resolve('');
      const requestId = Math.random().toString(36).slice(2);
      const timer = window.setTimeout(() => resolve(''), 3000);
      pendingCvv.set(requestId, (value) => {
        window.clearTimeout(timer);
        resolve(value);
      });
      sibling.postMessage({ protocol: PROTOCOL, channel, type: 'cvvRequest', requestId }, location.origin);
    });

  const tokenize = async (message: Envelope): Promise<void> => {
    if (recacheOf !== null) return toParent('errors', { errors: [{ key: 'errors.invalid', message: 'This form is in recache mode: call recache().' }] });
    // The number is checked here first (as the shopper typed it): a card that cannot be valid
    // costs no request, and no tokenization budget.
    if (digits === '') return toParent('errors', { errors: [{ attribute: 'number', key: 'errors.blank', message: "Number can't be blank" }] });
    if (!checkCardNumber(digits).valid) return toParent('errors', { errors: [{ attribute: 'number', key: 'errors.invalid', message: 'Number is invalid' }] });
    const cvv = await siblingCvv();
    const body = tokenizationBody(message.fields as Record<string, unknown>, message.security as Record<string, unknown>, digits, cvv);
    await send('/v1/payment_methods/restricted.json', body, (paymentMethod) => toParent('paymentMethod', { token: paymentMethod.token, paymentMethod }), 'Unable to tokenize the payment method.');
  };

  /** Recache mode: the masked card in a read-only field; the CVV frame stays as it is. */
  const setRecache = (message: Envelope): void => {
    const token = message.token;
    if (field !== 'number' || typeof token !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(token)) return;
    const lastFour = typeof message.lastFour === 'string' && /^\d{4}$/.test(message.lastFour) ? message.lastFour : '';
    recacheOf = { token, cardType: typeof message.cardType === 'string' ? message.cardType : undefined, lastFour };
    digits = '';
    input.value = display();
    input.readOnly = true;
    input.setAttribute('aria-readonly', 'true');
    toParent('recacheReady', { properties: properties(), paymentMethod: { token, card_type: recacheOf.cardType, last_four_digits: lastFour } });
  };

  const recache = async (message: Envelope): Promise<void> => {
    if (recacheOf === null) return toParent('errors', { errors: [{ key: 'errors.invalid', message: 'Call setRecache(token, …) first.' }] });
    const cvv = await siblingCvv();
    if (cvv === '') return toParent('errors', { errors: [{ attribute: 'verification_value', key: 'errors.blank', message: "Verification value can't be blank" }] });
    const paymentMethod = withSecurity({ credit_card: { verification_value: cvv }, parent_origin: parentOrigin }, message.security as Record<string, unknown> | undefined);
    const token = recacheOf.token;
    await send(`/v1/payment_methods/restricted/${encodeURIComponent(token)}/recache.json`, { payment_method: paymentMethod }, (answer) => toParent('recache', { token, paymentMethod: answer }), 'Unable to recache the payment method.');
  };

  const fromParent = (message: Envelope): void => {
    const value = message.value;
    switch (message.type) {
      case 'setFieldType':
        if (value === 'text' || value === 'tel' || value === 'number') input.type = value;
        break;
      case 'setLabel':
        if (typeof value === 'string') {
          input.setAttribute('aria-label', value);
          const label = document.getElementById('field-label');
          if (label !== null) label.textContent = value;
        }
        break;
      case 'setPlaceholder':
        if (typeof value === 'string') input.placeholder = value;
        break;
      case 'setStyle':
        // CSSOM, not a style attribute: the frame's CSP allows no inline styles.
        if (typeof value === 'string') input.style.cssText += `;${value}`;
        break;
      case 'setNumberFormat':
        if (value === 'prettyFormat' || value === 'plainFormat' || value === 'maskedFormat') {
          format = value;
          input.value = display();
        }
        break;
      case 'focus':
        input.focus();
        break;
      case 'toggleAutoComplete':
        input.autocomplete = input.autocomplete === 'off' ? (field === 'number' ? 'cc-number' : 'cc-csc') : 'off';
        break;
      case 'tokenize':
        if (field === 'number') void tokenize(message);
        break;
      case 'setRecache':
        setRecache(message);
        break;
      case 'recache':
        if (field === 'number') void recache(message);
        break;
      default:
        break;
    }
  };

  const fromSibling = (message: Envelope): void => {
    if (field === 'cvv' && message.type === 'cvvRequest') {
      siblingWindow('number')?.postMessage({ protocol: PROTOCOL, channel, type: 'cvvValue', requestId: message.requestId, value: digits }, location.origin);
    } else if (field === 'number' && message.type === 'cvvValue' && typeof message.requestId === 'string') {
      pendingCvv.get(message.requestId)?.(typeof message.value === 'string' ? message.value : '');
      pendingCvv.delete(message.requestId);
    }
  };

  window.addEventListener('message', (event: MessageEvent) => {
    if (!isEnvelope(event.data, channel)) return;
    // Exact origin and exact window: the embedding page, or the sibling frame of this form.
    if (event.origin === parentOrigin && event.source === window.parent) fromParent(event.data);
    else if (event.origin === location.origin && event.source !== null && event.source === siblingWindow(field === 'number' ? 'cvv' : 'number')) fromSibling(event.data);
  });

  toParent('ready', { name: field, properties: properties() });
}

/** The body of the tokenization request: the merchant's fields, the card, the signature fields. */
function tokenizationBody(fields: Record<string, unknown> | undefined, security: Record<string, unknown> | undefined, number: string, cvv: string) {
  const paymentLevel = new Set(['email', 'metadata', 'data', 'allow_blank_name', 'allow_expired_date', 'allow_blank_date']);
  const creditCard: Record<string, unknown> = { number, verification_value: cvv };
  const paymentMethod: Record<string, unknown> = { credit_card: creditCard, parent_origin: parentOrigin };
  for (const [name, value] of Object.entries(fields ?? {})) {
    if (name === 'number' || name === 'verification_value') continue;
    if (paymentLevel.has(name)) paymentMethod[name] = value;
    else creditCard[name] = value;
  }
  return { payment_method: withSecurity(paymentMethod, security) };
}

/** The enhanced-security fields the merchant's page gave (nonce, timestamp, certificate, signature), beside the payment method's. */
function withSecurity(paymentMethod: Record<string, unknown>, security: Record<string, unknown> | undefined): Record<string, unknown> {
  for (const [name, value] of Object.entries(security ?? {})) {
    if (typeof value === 'string' && value !== '') paymentMethod[name] = value;
  }
  return paymentMethod;
}

if (data.refused !== undefined) {
  // A refused frame (unknown environment, origin not allowed) only says why.
  toParent('errors', { errors: [{ key: data.refused, message: data.message ?? '' }] });
} else {
  const input = document.getElementById('field-input');
  const field = data.field;
  if (input instanceof HTMLInputElement && (field === 'number' || field === 'cvv')) runField(field, input);
}
