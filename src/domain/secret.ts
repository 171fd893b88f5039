const FILTERED = '[FILTERED]';

/**
 * A sensitive value (PAN, CVV, bank account number, credential, private key) in memory.
 * It redacts itself wherever it could be printed by accident — JSON.stringify, template
 * strings, console/util.inspect, pino — and yields its value only through `reveal()`.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The value itself; call only where it is sent to the party that needs it. */
  reveal(): string {
    return this.#value;
  }

  get length(): number {
    return this.#value.length;
  }

  toJSON(): string {
    return FILTERED;
  }

  toString(): string {
    return FILTERED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Secret(${FILTERED})`;
  }
}
