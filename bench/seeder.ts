import { randomBytes } from 'node:crypto';
import { sql, type Insertable } from 'kysely';
import type { StoreConfig } from '../src/config/config.js';
import type { PaymentMethodCreateInput } from '../src/domain/payment-method.js';
import { blankResponse } from '../src/gateways/kit/index.js';
import { PaymentMethodSealer, type SealedFields } from '../src/services/payment-method-sealer.js';
import { newTransaction } from '../src/services/transaction-records.js';
import { newTransactionRow } from '../src/store/mappers/transaction.js';
import { responseRecord } from '../src/services/transactions/transaction-details.js';
import { EMPTY_SHIPPING_ADDRESS, type GatewayTransactionDetails } from '../src/domain/transaction-details.js';
import { openStore, type StoreHandle } from '../src/store/database.js';
import { repositories } from '../src/store/repositories.js';
import type { PaymentMethodsTable, TransactionsTable } from '../src/store/schema.js';
import { TEST_CARDS } from '../src/domain/test-cards.js';
import { WrappedKeysRepo } from '../src/store/repositories/wrapped-keys.repo.js';
import { Keyring } from '../src/vault/keyring.js';

/**
 * The fast bulk path of the scale bench: payment methods and purchases written straight into the
 * store in multi-row INSERTs, many per database transaction, while the server is stopped. Rows
 * are genuine: every card goes through the vault's own PaymentMethodSealer (validation, AES-256-GCM
 * under the environment's data key, HMAC fingerprint) exactly as the API stores it, and every
 * purchase carries the details a succeeded test-gateway purchase records.
 */

export interface SeedOptions {
  store: StoreConfig;
  masterKey: Buffer;
  environmentKey: string;
  gatewayToken: string;
  paymentMethods: number;
  transactions: number;
  /**
   * Distinct card numbers (Luhn-valid Visa numbers drawn from the index) instead of the few test
   * cards, so last fours, first sixes and fingerprints spread as a real vault's do (the portal
   * bench's searches). Such numbers are not test cards: they are sealed as a production
   * environment's would be, though the rows stay in the given environment.
   */
  variedCards?: boolean;
  /** Rows per INSERT statement. */
  batchRows?: number;
  /** INSERT statements per database transaction. */
  batchesPerCommit?: number;
  onProgress?: (line: string) => void;
}

/** Samples of what was written, for the scenarios that follow, and how fast it went. */
export interface SeedResult {
  paymentMethodsPerSecond: number;
  transactionsPerSecond: number;
  paymentMethodSeconds: number;
  transactionSeconds: number;
  /** 100 payment method tokens spread over the whole range. */
  samplePaymentMethods: string[];
  /** 100 transaction tokens spread over the whole range. */
  sampleTransactions: string[];
  /** Transaction tokens at fractions of the seeded range (for `since_token` deep into the list). */
  transactionsAtDepth: Array<{ fraction: number; token: string }>;
}

export const DEPTHS = [0.1, 0.5, 0.9, 0.999] as const;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * Tokens of the API's shape (29 characters of [a-zA-Z0-9]) drawn in bulk: randomToken's one
 * randomInt per character is the right call per request and the slowest part of two million rows.
 */
export function bulkTokens(count: number, length = 29): string[] {
  const tokens: string[] = [];
  let pool = randomBytes(0);
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    let token = '';
    while (token.length < length) {
      if (at >= pool.length) {
        pool = randomBytes(64 * 1024);
        at = 0;
      }
      const byte = pool[at++] as number;
      // 248 = 4 × 62: bytes above it are dropped, so every character is equally likely.
      if (byte < 248) token += ALPHABET[byte % 62];
    }
    tokens.push(token);
  }
  return tokens;
}

const SUCCEEDING_CARDS = TEST_CARDS.filter((card) => card.outcome === 'succeed').map((card) => card.number);

/** A Luhn-valid 16-digit Visa number for `index`: its 14 middle digits spread the index (× an odd multiplier not divisible by 5, mod 10^14: distinct for every index). */
export function variedCardNumber(index: number): string {
  const body = `4${String((BigInt(index) * 98_765_432_109_871n + 1_000_003n) % 100_000_000_000_000n).padStart(14, '0')}`;
  let sum = 0;
  for (let position = 0; position < body.length; position += 1) {
    let digit = Number(body[body.length - 1 - position]);
    if (position % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

function cardInput(index: number, varied: boolean): PaymentMethodCreateInput {
  return {
    type: 'credit_card',
    card: { first_name: `First${index % 997}`, last_name: `Last${index % 991}`, number: varied ? variedCardNumber(index) : SUCCEEDING_CARDS[index % SUCCEEDING_CARDS.length], month: 1 + (index % 12), year: 2030 + (index % 8) },
    email: `customer${index % 100_000}@example.com`,
    retained: true,
    singleUse: false,
    allowBlankName: false,
    allowExpiredDate: false,
    allowBlankDate: false,
  };
}

function purchaseDetails(at: string, gatewayTransactionId: string): GatewayTransactionDetails {
  return {
    on_test_gateway: true,
    gateway_type: 'test',
    order_id: null,
    ip: null,
    description: null,
    email: null,
    merchant_name_descriptor: null,
    merchant_location_descriptor: null,
    gateway_specific_fields: null,
    gateway_specific_response_fields: {},
    gateway_transaction_id: gatewayTransactionId,
    gateway_latency_ms: 0,
    retain_on_success: false,
    payment_method_added: false,
    attempt_3dsecure: false,
    shipping_address: { ...EMPTY_SHIPPING_ADDRESS },
    response: responseRecord({ ...blankResponse(true, 'Successful purchase'), gatewayTransactionId }, at),
  };
}

async function insertInCommits<T>(store: StoreHandle, rows: number, batchRows: number, batchesPerCommit: number, build: (start: number, count: number) => Promise<T[]>, insert: (store: StoreHandle['db'], values: T[]) => Promise<unknown>, progress: (done: number) => void): Promise<void> {
  const perCommit = batchRows * batchesPerCommit;
  for (let start = 0; start < rows; start += perCommit) {
    const count = Math.min(perCommit, rows - start);
    const batches: T[][] = [];
    for (let offset = 0; offset < count; offset += batchRows) batches.push(await build(start + offset, Math.min(batchRows, count - offset)));
    await store.db.transaction().execute(async (trx) => {
      for (const values of batches) await insert(trx, values);
    });
    progress(start + count);
  }
}

/** Writes the payment methods, then one succeeded purchase for each of the first `transactions` of them. */
export async function seedStore(options: SeedOptions): Promise<SeedResult> {
  const store = openStore(options.store);
  const keyring = new Keyring(new WrappedKeysRepo(store.db), options.masterKey);
  const sealer = new PaymentMethodSealer(keyring);
  const batchRows = options.batchRows ?? 500;
  const batchesPerCommit = options.batchesPerCommit ?? 20;
  const report = options.onProgress ?? (() => undefined);
  try {
    await keyring.verifyMasterKey();
    const environment = await repositories(store.db, store.dialect).environments.find(options.environmentKey);
    if (environment === undefined) throw new Error(`no environment ${options.environmentKey}`);
    const methodTokens = bulkTokens(options.paymentMethods);
    const sealingEnvironment = options.variedCards === true ? { ...environment, production: true } : environment;
    const now = Date.now();
    // Spread over the last 30 days, oldest first, as a real history would be.
    const timeOf = (index: number, total: number) => new Date(now - 30 * 86_400_000 + Math.floor((index / total) * 30 * 86_400_000)).toISOString();

    let started = performance.now();
    await insertInCommits<Insertable<PaymentMethodsTable>>(
      store,
      options.paymentMethods,
      batchRows,
      batchesPerCommit,
      async (first, count) => {
        const rows: Insertable<PaymentMethodsTable>[] = [];
        for (let index = first; index < first + count; index += 1) {
          const token = methodTokens[index] as string;
          const at = timeOf(index, options.paymentMethods);
          const prepared = await sealer.prepare(sealingEnvironment, token, cardInput(index, options.variedCards === true), new Date(at));
          if (prepared.sealed === null) throw new Error(`seed card ${index} did not validate: ${prepared.errors.map((error) => error.key).join(', ')}`);
          const sealed: SealedFields = prepared.sealed;
          rows.push({
            token,
            environment_key: environment.key,
            payment_method_type: sealed.kind.paymentMethodType,
            storage_state: 'retained',
            test: sealed.test ? 1 : 0,
            single_use: 0,
            email: `customer${index % 100_000}@example.com`,
            data: null,
            metadata: JSON.stringify({ customer: `c-${index}` }),
            callback_url: null,
            details: JSON.stringify(sealed.kind.details),
            sealed_number: sealed.number,
            fingerprint: sealed.fingerprint,
            sealed_cvv: null,
            cvv_length: null,
            cvv_expires_at: null,
            sealed_routing_number: null,
            sealed_account_number: null,
            cache_expires_at: null,
            created_at: at,
            updated_at: at,
          });
        }
        return rows;
      },
      (db, values) => db.insertInto('payment_methods').values(values).execute(),
      (done) => report(`payment methods ${done.toLocaleString('en-US')}/${options.paymentMethods.toLocaleString('en-US')}`),
    );
    const paymentMethodSeconds = (performance.now() - started) / 1000;

    const transactionTokens = bulkTokens(options.transactions);
    started = performance.now();
    await insertInCommits<Insertable<TransactionsTable>>(
      store,
      options.transactions,
      batchRows,
      batchesPerCommit,
      async (first, count) => {
        const rows: Insertable<TransactionsTable>[] = [];
        for (let index = first; index < first + count; index += 1) {
          const at = timeOf(index, options.transactions);
          const row = newTransactionRow(newTransaction({
            token: transactionTokens[index] as string,
            environmentKey: environment.key,
            transactionType: 'Purchase',
            outcome: 'succeeded',
            gatewayToken: options.gatewayToken,
            paymentMethodToken: methodTokens[index % options.paymentMethods] as string,
            amount: 100 + (index % 10_000),
            currencyCode: 'USD',
            details: purchaseDetails(at, String(1 + (index % 99_999))),
            now: at,
          }));
          rows.push({ ...row, transcript: `[test gateway] purchase of ${row.amount} USD\n\n[test gateway] purchase → success: Successful purchase` });
        }
        return rows;
      },
      (db, values) => db.insertInto('transactions').values(values).execute(),
      (done) => report(`transactions ${done.toLocaleString('en-US')}/${options.transactions.toLocaleString('en-US')}`),
    );
    const transactionSeconds = (performance.now() - started) / 1000;
    if (store.dialect === 'postgres') {
      // What autovacuum would do minutes later, done now so it does not run during the measurements.
      report('vacuum analyze');
      await sql`vacuum analyze payment_methods`.execute(store.db);
      await sql`vacuum analyze transactions`.execute(store.db);
    }
    const spread = (tokens: string[]) => Array.from({ length: 100 }, (_, index) => tokens[Math.floor((index * tokens.length) / 100)] as string);
    return {
      paymentMethodsPerSecond: Math.round(options.paymentMethods / paymentMethodSeconds),
      transactionsPerSecond: Math.round(options.transactions / transactionSeconds),
      paymentMethodSeconds: Math.round(paymentMethodSeconds * 10) / 10,
      transactionSeconds: Math.round(transactionSeconds * 10) / 10,
      samplePaymentMethods: spread(methodTokens),
      sampleTransactions: spread(transactionTokens),
      transactionsAtDepth: DEPTHS.map((fraction) => ({ fraction, token: transactionTokens[Math.floor(fraction * (transactionTokens.length - 1))] as string })),
    };
  } finally {
    await store.close();
  }
}
