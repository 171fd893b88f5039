/**
 * Coffer's iFrame-compatible script: defines the global `Spreedly` with the public API of
 * Spreedly's iFrame v1, so a checkout page moves to Coffer by changing only the script's src.
 * The card number and CVV inputs live in frames served by Coffer (the origin this script was
 * loaded from); this script talks to them only by postMessage, to and from that exact origin.
 */
import { frameName, isEnvelope, PROTOCOL, type Envelope, type FieldName, type InputProperties } from './protocol.js';

type Handler = (...args: unknown[]) => void;

interface InitOptions {
  numberEl?: string;
  cvvEl?: string;
  nonce?: string;
  timestamp?: string | number;
  certificateToken?: string;
  signature?: string;
}

const EVENTS = ['ready', 'paymentMethod', 'errors', 'fieldEvent', 'validation', 'consoleError', 'recacheReady', 'recache'] as const;

/** Where Coffer is: the origin this very script came from. */
const script = document.currentScript as HTMLScriptElement | null;
const cofferOrigin = script !== null && script.src !== '' ? new URL(script.src).origin : location.origin;

const READY_TIMEOUT_MS = 15_000;

function newChannel(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

class CofferIframe {
  private handlers = new Map<string, Handler[]>();
  private environmentKey = '';
  private options: InitOptions = {};
  private channel = '';
  private frames = new Map<FieldName, HTMLIFrameElement>();
  private readyFields = new Set<FieldName>();
  private queued = new Map<FieldName, Array<Record<string, unknown>>>();
  private numberProperties: InputProperties = {};
  private cvvProperties: InputProperties = {};
  private params: Record<string, unknown> = {};
  private readyTimer: number | undefined;
  private listening = false;

  /** Builds the two frames inside the elements named by `numberEl` and `cvvEl`. */
  init(environmentKey: string, options: InitOptions = {}): void {
    this.environmentKey = environmentKey;
    this.options = options;
    if (!this.listening) {
      window.addEventListener('message', (event) => this.receive(event));
      this.listening = true;
    }
    this.build();
  }

  on(event: string, handler: Handler): void {
    if (!(EVENTS as readonly string[]).includes(event) || typeof handler !== 'function') return;
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
  }

  removeHandlers(): void {
    this.handlers.clear();
  }

  /** Sends the card with the merchant's fields (names, expiry, address, email, metadata). */
  tokenizeCreditCard(fields: Record<string, unknown> = {}): void {
    this.send('number', { type: 'tokenize', fields: { ...this.params, ...fields }, security: this.security() });
  }

  /** The enhanced-security fields given to `init` (docs/card-capture.md). */
  private security(): Record<string, string | undefined> {
    const { nonce, timestamp, certificateToken, signature } = this.options;
    return { nonce, timestamp: timestamp === undefined ? undefined : String(timestamp), certificate_token: certificateToken, signature };
  }

  /**
   * Recache mode: the number frame shows the vaulted card masked (its brand and last four, as
   * the merchant's server knows them) and only the CVV is typed; `recacheReady` fires once it
   * is set. `recache()` then sends the CVV for that token.
   */
  setRecache(token: string, options: { card_type?: string; last_four_digits?: string } = {}): void {
    this.send('number', { type: 'setRecache', token, cardType: options.card_type, lastFour: options.last_four_digits });
  }

  /** Sends the typed CVV for the token of `setRecache`; `recache` (token, payment method) or `errors` follows. */
  recache(): void {
    this.send('number', { type: 'recache', security: this.security() });
  }

  /** Emits `validation` with what the frames last reported. */
  validate(): void {
    window.setTimeout(() => this.emit('validation', this.properties()), 0);
  }

  setFieldType(field: string, type?: string): void {
    if (type === undefined) this.send('number', { type: 'setFieldType', value: field });
    else this.forField(field, { type: 'setFieldType', value: type });
  }

  setLabel(field: string, label: string): void {
    this.forField(field, { type: 'setLabel', value: label });
  }

  setPlaceholder(field: string, placeholder: string): void {
    this.forField(field, { type: 'setPlaceholder', value: placeholder });
  }

  setStyle(field: string, css: string): void {
    this.forField(field, { type: 'setStyle', value: css });
  }

  setNumberFormat(format: string): void {
    this.send('number', { type: 'setNumberFormat', value: format });
  }

  transferFocus(field: string): void {
    this.forField(field, { type: 'focus' });
  }

  toggleAutoComplete(): void {
    this.send('number', { type: 'toggleAutoComplete' });
    this.send('cvv', { type: 'toggleAutoComplete' });
  }

  /** Extra fields sent with every tokenization (e.g. `allow_blank_name`). */
  setParam(name: string, value: unknown): void {
    this.params[name] = value;
  }

  /** Empties the form: new frames, new channel; `ready` fires again. */
  reload(): void {
    this.build();
  }

  private build(): void {
    for (const frame of this.frames.values()) frame.remove();
    this.frames.clear();
    this.readyFields.clear();
    this.queued.clear();
    this.numberProperties = {};
    this.cvvProperties = {};
    this.channel = newChannel();
    const elements: Array<[FieldName, string | undefined, string]> = [
      ['number', this.options.numberEl, 'Card number'],
      ['cvv', this.options.cvvEl, 'Security code'],
    ];
    for (const [field, id, title] of elements) {
      const container = id === undefined ? null : document.getElementById(id);
      if (container === null) {
        this.emit('consoleError', { msg: `Unable to find the element for the ${field} field`, url: location.href, line: 0, col: 0 });
        continue;
      }
      const frame = document.createElement('iframe');
      const query = new URLSearchParams({ field, environment_key: this.environmentKey, origin: location.origin, channel: this.channel });
      frame.src = `${cofferOrigin}/iframe/v1/frame.html?${query.toString()}`;
      frame.name = frameName(field, this.channel);
      frame.id = `spreedly-${field}-frame-${this.channel.slice(0, 8)}`;
      frame.title = title;
      frame.setAttribute('frameborder', '0');
      frame.setAttribute('scrolling', 'no');
      frame.style.cssText = 'border:none;width:100%;height:100%;display:block;';
      container.appendChild(frame);
      this.frames.set(field, frame);
    }
    window.clearTimeout(this.readyTimer);
    const channel = this.channel;
    this.readyTimer = window.setTimeout(() => {
      if (channel === this.channel && this.readyFields.size < this.frames.size) {
        this.emit('consoleError', { msg: 'The card form did not load (is this origin allowed?)', url: location.href, line: 0, col: 0 });
      }
    }, READY_TIMEOUT_MS);
  }

  private receive(event: MessageEvent): void {
    if (event.origin !== cofferOrigin || !isEnvelope(event.data, this.channel)) return;
    const field = [...this.frames.entries()].find(([, frame]) => frame.contentWindow === event.source)?.[0];
    if (field === undefined) return;
    const message: Envelope = event.data;
    switch (message.type) {
      case 'ready':
        this.remember(field, message.properties);
        this.readyFields.add(field);
        for (const queued of this.queued.get(field) ?? []) this.post(field, queued);
        this.queued.delete(field);
        if (this.readyFields.size === this.frames.size && this.frames.size === 2) this.emit('ready');
        break;
      case 'fieldEvent':
        this.remember(field, message.properties);
        this.emit('fieldEvent', field, message.eventType, message.activeElement, this.properties());
        break;
      case 'paymentMethod':
        if (field === 'number') this.emit('paymentMethod', message.token, message.paymentMethod);
        break;
      case 'recacheReady':
        if (field === 'number') {
          this.remember(field, message.properties);
          this.emit('recacheReady', message.paymentMethod);
        }
        break;
      case 'recache':
        if (field === 'number') this.emit('recache', message.token, message.paymentMethod);
        break;
      case 'errors':
        this.emit('errors', Array.isArray(message.errors) ? message.errors : []);
        break;
      default:
        break;
    }
  }

  private remember(field: FieldName, properties: unknown): void {
    if (properties === null || typeof properties !== 'object') return;
    if (field === 'number') this.numberProperties = properties as InputProperties;
    else this.cvvProperties = properties as InputProperties;
  }

  /** Both frames' reports in one object; the CVV's validity depends on the brand. */
  private properties(): InputProperties {
    const cvvLength = this.cvvProperties.cvvLength ?? 0;
    const cardType = this.numberProperties.cardType;
    const validCvv = cardType === 'american_express' ? cvvLength === 4 : cardType === undefined ? cvvLength === 3 || cvvLength === 4 : cvvLength === 3;
    return {
      cardType,
      validNumber: this.numberProperties.validNumber ?? false,
      validCvv,
      numberLength: this.numberProperties.numberLength ?? 0,
      cvvLength,
    };
  }

  private forField(field: string, message: Record<string, unknown>): void {
    if (field === 'number' || field === 'cvv') this.send(field, message);
  }

  private send(field: FieldName, message: Record<string, unknown>): void {
    if (this.readyFields.has(field)) this.post(field, message);
    else this.queued.set(field, [...(this.queued.get(field) ?? []), message]);
  }

  private post(field: FieldName, message: Record<string, unknown>): void {
    this.frames.get(field)?.contentWindow?.postMessage({ protocol: PROTOCOL, channel: this.channel, ...message }, cofferOrigin);
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const handler of this.handlers.get(event) ?? []) {
      try {
        handler(...args);
      } catch (error) {
        // A merchant's handler that throws must not stop the others.
        window.setTimeout(() => {
          throw error;
        }, 0);
      }
    }
  }
}

// `Spreedly` is the default instance; `new SpreedlyPaymentFrame()` makes more (one per form).
const globals = window as unknown as { Spreedly: CofferIframe; SpreedlyPaymentFrame: typeof CofferIframe };
globals.SpreedlyPaymentFrame = CofferIframe;
globals.Spreedly = new CofferIframe();
