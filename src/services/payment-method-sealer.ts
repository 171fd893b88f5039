import { AppError, MESSAGES, fieldError, type ErrorEntry } from '../domain/errors.js';
import type { PaymentMethodCreateInput, PaymentMethodKind } from '../domain/payment-method.js';
import { Secret } from '../domain/secret.js';
import type { AdapterPaymentMethod } from '../gateways/kit/index.js';
import { normalizePan } from '../vault/card-rules.js';
import type { Keyring } from '../vault/keyring.js';
import { isTestBankAccount, isTestCard } from '../vault/test-cards.js';
import { bankAccountDetails, cardDetails, walletDetails } from './payment-method-records.js';
import type { DecryptedWallet } from './wallet-tokens.service.js';
import { bankAccountErrors, cardErrors, thirdPartyErrors, verificationValueErrors } from './payment-method-validation.js';
import type { Environment } from '../domain/environment.js';
import type { PaymentMethod } from '../domain/payment-method.js';

/** A validated payment method, its sensitive values already sealed for storage. */
export interface SealedFields {
  /** The kind and its non-sensitive details. */
  kind: PaymentMethodKind;
  test: boolean;
  number: string | null;
  fingerprint: string | null;
  cvv: string | null;
  cvvLength: number | null;
  routingNumber: string | null;
  accountNumber: string | null;
}

const NOTHING_SEALED = { number: null, fingerprint: null, cvv: null, cvvLength: null, routingNumber: null, accountNumber: null } as const;

/** Associated data binding each blob to its payment method and field. */
export function paymentMethodAad(token: string, field: 'number' | 'cvv' | 'routing_number' | 'account_number'): string {
  return `payment_method:${token}:${field}`;
}

/**
 * Turns submitted card or bank data into what may be stored: validation errors, or sealed
 * blobs plus non-sensitive details. Plaintext never leaves this class except to the keyring.
 */
export class PaymentMethodSealer {
  constructor(private readonly keyring: Keyring) {}

  /**
   * In a test environment a real card (or bank account, or third-party vault) is refused with
   * 402 before the other checks, as Spreedly does. Any number of digits that is not a test card
   * counts as real, whether or not it would pass the number checks (Spreedly answers 402 to the
   * number `343`; docs/wire-compatibility.md): the environment is checked before the number.
   * Text that is not digits at all is no card number, and gets 422 on `number`.
   */
  async prepare(
    environment: Environment,
    token: string,
    input: PaymentMethodCreateInput,
    now: Date,
  ): Promise<{ errors: ErrorEntry[]; sealed: SealedFields | null }> {
    const production = environment.production;
    const notActivated = () => new AppError({ key: 'errors.account_inactive', message: MESSAGES.notActivated(environment.key) });
    if (input.type === 'credit_card') {
      const card = input.card ?? {};
      const digits = card.number === undefined ? '' : normalizePan(card.number);
      const test = digits !== '' && isTestCard(digits);
      if (/^\d+$/.test(digits) && !test && !production) throw notActivated();
      const errors = cardErrors({ ...card, number: digits === '' ? undefined : digits }, input, now);
      if (errors.length > 0) return { errors, sealed: null };
      const cvv = card.verification_value ?? null;
      return {
        errors: [],
        sealed: {
          kind: { paymentMethodType: 'credit_card', details: cardDetails(card, digits) },
          test,
          number: await this.seal(environment.key, token, 'number', digits),
          fingerprint: await this.keyring.fingerprint(environment.key, digits),
          cvv: cvv === null ? null : await this.seal(environment.key, token, 'cvv', cvv),
          cvvLength: cvv === null ? null : cvv.length,
          routingNumber: null,
          accountNumber: null,
        },
      };
    }
    if (input.type === 'bank_account') {
      const bank = input.bankAccount ?? {};
      const routing = bank.bank_routing_number ?? '';
      const account = bank.bank_account_number ?? '';
      const test = isTestBankAccount(routing, account);
      if (routing !== '' && account !== '' && !test && !production) throw notActivated();
      const errors = bankAccountErrors(bank, input);
      if (errors.length > 0) return { errors, sealed: null };
      return {
        errors: [],
        sealed: {
          kind: { paymentMethodType: 'bank_account', details: bankAccountDetails(bank, routing, account) },
          test,
          ...NOTHING_SEALED,
          routingNumber: await this.seal(environment.key, token, 'routing_number', routing),
          accountNumber: await this.seal(environment.key, token, 'account_number', account),
        },
      };
    }
    if (input.type === 'third_party_token') {
      const thirdParty = input.thirdParty ?? {};
      const test = thirdParty.gateway_type === 'test';
      if (thirdParty.gateway_type !== undefined && !test && !production) throw notActivated();
      const errors = thirdPartyErrors(thirdParty);
      if (errors.length > 0) return { errors, sealed: null };
      return {
        errors: [],
        sealed: {
          kind: { paymentMethodType: 'third_party_token', details: { third_party_token: thirdParty.reference ?? null, gateway_type: thirdParty.gateway_type ?? null } },
          test,
          ...NOTHING_SEALED,
        },
      };
    }
    if (input.type === 'sprel') {
      // A test method with nothing to seal (the transparent redirect's offsite test type).
      return { errors: [], sealed: { kind: { paymentMethodType: 'sprel', details: {} }, test: true, ...NOTHING_SEALED } };
    }
    return { errors: [{ key: 'errors.payment_method_type_required', message: MESSAGES.paymentMethodTypeRequired }], sealed: null };
  }

  /**
   * A decrypted wallet token made ready to store: the DPAN (or PAN_ONLY card number) sealed as a
   * card number, the cryptogram and ECI sealed together in the CVV's place, so they are dropped as
   * a CVV is (at the first transaction, or when the caching window ends). A number that is not a
   * test card is refused with 402 in a test environment, as a card's is.
   */
  async prepareWallet(environment: Environment, token: string, wallet: DecryptedWallet): Promise<SealedFields> {
    const digits = normalizePan(wallet.number.reveal());
    const test = isTestCard(digits);
    if (!test && !environment.production) throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.notActivated(environment.key) });
    const oneUse = wallet.cryptogram === null && wallet.eci === null ? null : JSON.stringify({ cryptogram: wallet.cryptogram?.reveal() ?? null, eci: wallet.eci });
    return {
      kind: { paymentMethodType: wallet.type, details: walletDetails(wallet, digits) },
      test,
      number: await this.seal(environment.key, token, 'number', digits),
      fingerprint: await this.keyring.fingerprint(environment.key, digits),
      cvv: oneUse === null ? null : await this.seal(environment.key, token, 'cvv', oneUse),
      cvvLength: null,
      routingNumber: null,
      accountNumber: null,
    };
  }

  /** Validates and seals a CVV supplied by recache. */
  async sealCvv(environmentKey: string, token: string, value: string | undefined): Promise<{ blob: string; length: number }> {
    if (value === undefined || value === '') throw new AppError(fieldError.blank('verification_value'));
    const errors = verificationValueErrors(value);
    if (errors.length > 0) throw new AppError(errors);
    return { blob: await this.seal(environmentKey, token, 'cvv', value), length: value.length };
  }

  /**
   * Opens a stored payment method for the adapter that will send it: sensitive values in
   * `Secret`s, the rest as plain fields. Null when there is nothing left to send (redacted).
   */
  async open(method: PaymentMethod): Promise<AdapterPaymentMethod | null> {
    const openField = async (blob: string | null, field: Parameters<typeof paymentMethodAad>[1]) =>
      blob === null ? null : new Secret((await this.keyring.openFor(method.environmentKey, blob, paymentMethodAad(method.token, field))).toString('utf8'));
    if (method.paymentMethodType === 'credit_card') {
      const number = await openField(method.sealed.number, 'number');
      if (number === null) return null;
      const { details } = method;
      return {
        type: 'credit_card',
        number,
        verificationValue: await openField(method.sealed.cvv, 'cvv'),
        month: typeof details.month === 'number' ? details.month : null,
        year: typeof details.year === 'number' ? details.year : null,
        firstName: text(details.first_name),
        lastName: text(details.last_name),
        cardType: text(details.card_type),
        address: { address1: text(details.address1), address2: text(details.address2), city: text(details.city), state: text(details.state), zip: text(details.zip), country: text(details.country) },
        email: method.email,
      };
    }
    if (method.paymentMethodType === 'bank_account') {
      const routingNumber = await openField(method.sealed.routingNumber, 'routing_number');
      const accountNumber = await openField(method.sealed.accountNumber, 'account_number');
      if (routingNumber === null || accountNumber === null) return null;
      const { details } = method;
      return {
        type: 'bank_account',
        routingNumber,
        accountNumber,
        accountType: text(details.account_type),
        holderType: text(details.account_holder_type),
        firstName: text(details.first_name),
        lastName: text(details.last_name),
      };
    }
    if (method.paymentMethodType === 'sprel') return method.storageState === 'redacted' ? null : { type: 'sprel' };
    if (method.paymentMethodType === 'apple_pay' || method.paymentMethodType === 'google_pay') {
      const number = await openField(method.sealed.number, 'number');
      if (number === null) return null;
      const oneUse = await openField(method.sealed.cvv, 'cvv');
      const parsed = oneUse === null ? { cryptogram: null, eci: null } : (JSON.parse(oneUse.reveal()) as { cryptogram: string | null; eci: string | null });
      const { details } = method;
      return {
        type: method.paymentMethodType,
        networkToken: details.wallet_auth_method !== 'pan_only',
        number,
        cryptogram: parsed.cryptogram === null ? null : new Secret(parsed.cryptogram),
        eci: parsed.eci,
        month: typeof details.month === 'number' ? details.month : null,
        year: typeof details.year === 'number' ? details.year : null,
        firstName: text(details.first_name),
        lastName: text(details.last_name),
        cardType: text(details.card_type),
        email: method.email,
      };
    }
    const token = text(method.details.third_party_token);
    return token === null ? null : { type: 'third_party_token', token };
  }

  private seal(environmentKey: string, token: string, field: Parameters<typeof paymentMethodAad>[1], value: string): Promise<string> {
    return this.keyring.sealFor(environmentKey, Buffer.from(value, 'utf8'), paymentMethodAad(token, field));
  }
}

/** A detail that is text, or null (a stored detail may be of another type, or missing). */
function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
