import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { findCardData, maskFinding } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { gatewayOf } from '../../src/store/mappers/gateway.js';

/**
 * Card data at rest: after cards (with CVVs), bank accounts and a Stripe gateway went through
 * create, retain, recache and redact, the database holds none of them in clear: neither the
 * SQLite file and its WAL, byte for byte, nor a `pg_dump` of the PostgreSQL database.
 */

const run = promisify(execFile);

/** Test PANs (sandbox), with CVVs that occur nowhere else in the data. */
const SANDBOX_CARDS = [
  { number: '4111111111111111', cvv: '836', retained: true },
  { number: '5555555555554444', cvv: '7291', retained: false },
  { number: '378282246310005', cvv: '4057', retained: true },
  { number: '6011111111111117', cvv: '519', retained: false },
  { number: '4444333322221111455', cvv: '628', retained: true },
  { number: '3569990010030400', cvv: '947', retained: false },
];
/** A real (non-test) Luhn-valid PAN: only a production environment takes it. Found by the Luhn scan, not by name. */
const PRODUCTION_CARD = { number: '4242424242424242', cvv: '3518' };
const RECACHED_CVV = '752';
/** Luhn-valid, not a test card: written in clear on purpose at the end, to show the scans see it. */
const CONTROL_PAN = '4000056655665556';
const BANK_ACCOUNTS = [
  { routing: '021000021', account: '73649182507' },
  { routing: '011000015', account: '58201937' },
];

/** Each CVV in a field-like context: `"verification_value":"836"`, `<cvv>836</cvv>`, `cvv=836`, … */
function cvvInContext(text: string, cvv: string): boolean {
  return new RegExp(`(verification_value|cvv|cvc|security_code)[^0-9A-Za-z]{0,8}${cvv}(?![0-9])`, 'i').test(text);
}

describe.each(storeKinds)('card data at rest (%s)', (store) => {
  let server: TestServer;
  let prod: ApiClient;
  let productionKey: string;
  const stripeKey = `sk_live_ATREST${randomBytes(12).toString('hex')}`;
  const cvvs = [...SANDBOX_CARDS.map((card) => card.cvv), PRODUCTION_CARD.cvv, RECACHED_CVV];
  const secrets = [
    ...SANDBOX_CARDS.map((card) => card.number),
    PRODUCTION_CARD.number,
    ...BANK_ACCOUNTS.map((bank) => bank.account),
    ...BANK_ACCOUNTS.map((bank) => bank.routing),
    stripeKey,
  ];
  const redactedTokens: string[] = [];
  const liveTokens: string[] = [];

  async function createCard(client: ApiClient, card: { number: string; cvv: string }, retained: boolean): Promise<string> {
    const res = await client.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: {
        credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: card.number, verification_value: card.cvv, month: 12, year: 2040 },
        retained,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.json().transaction.payment_method.token as string;
  }

  beforeAll(async () => {
    server = await startServer({ store });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    productionKey = production.key;
    prod = server.client.withAuth({ user: production.key, password: server.init.access_secret });

    const cardTokens: string[] = [];
    for (const card of SANDBOX_CARDS) cardTokens.push(await createCard(server.client, card, card.retained));
    cardTokens.push(await createCard(prod, PRODUCTION_CARD, true));
    const bankTokens: string[] = [];
    for (const bank of BANK_ACCOUNTS) {
      const res = await server.client.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: {
          bank_account: { first_name: 'Ada', last_name: 'Lovelace', bank_routing_number: bank.routing, bank_account_number: bank.account, bank_account_type: 'checking' },
        },
      });
      expect(res.status, res.text).toBe(201);
      bankTokens.push(res.json().transaction.payment_method.token as string);
    }
    const gateway = await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: stripeKey } });
    expect(gateway.status, gateway.text).toBe(201);

    // Retain a cached card; recache a CVV; redact a retained card, a cached card and a bank account.
    const [visa, master, amex, discover, visa19, jcb, real] = cardTokens as [string, string, string, string, string, string, string];
    expect((await server.client.request('PUT', `/v1/payment_methods/${master}/retain.json`)).status).toBe(200);
    const recache = await server.client.sendJson('POST', `/v1/payment_methods/${visa}/recache.json`, {
      payment_method: { credit_card: { verification_value: RECACHED_CVV } },
    });
    expect(recache.status, recache.text).toBe(200);
    for (const token of [amex, discover, bankTokens[0]!]) {
      const res = await server.client.request('PUT', `/v1/payment_methods/${token}/redact.json`);
      expect(res.status, res.text).toBe(200);
      redactedTokens.push(token);
    }
    liveTokens.push(visa, master, visa19, jcb, bankTokens[1]!);
    // The production card stays retained too; its PAN is the one no name list catches.
    expect(real).toMatch(/^[A-Za-z0-9]{29}$/);
  });
  afterAll(() => server.close());

  it('shows every kept card masked, with its CVV held sealed', async () => {
    for (const token of liveTokens) {
      const res = await server.client.get(`/v1/payment_methods/${token}.json`);
      expect(res.status).toBe(200);
      const method = res.json().payment_method;
      if (method.payment_method_type === 'credit_card') {
        expect(method.number).toMatch(/^XXXX-XXXX-XXXX-\d{4}$/);
        expect(method.verification_value).toMatch(/^X{3,4}$/);
      }
    }
  });

  it('stores CVVs only as c1. blobs, never as a column value, and redacted rows hold nothing sensitive', async () => {
    const rows = await server.core.store.db.selectFrom('payment_methods').selectAll().execute();
    expect(rows.length).toBe(SANDBOX_CARDS.length + 1 + BANK_ACCOUNTS.length);
    for (const row of rows) {
      if (redactedTokens.includes(row.token)) {
        expect(row.storage_state).toBe('redacted');
        expect(row).toMatchObject({ sealed_number: null, sealed_cvv: null, fingerprint: null, sealed_routing_number: null, sealed_account_number: null, cvv_length: null });
        continue;
      }
      if (row.payment_method_type === 'credit_card') {
        expect(row.sealed_number).toMatch(/^c1\.d-[A-Za-z0-9]+-\d+\.[A-Za-z0-9+/]+=*$/);
        expect(row.sealed_cvv).toMatch(/^c1\.d-[A-Za-z0-9]+-\d+\.[A-Za-z0-9+/]+=*$/);
        expect(row.fingerprint).toMatch(/^[0-9a-f]{36}$/);
      } else {
        expect(row.sealed_routing_number).toMatch(/^c1\./);
        expect(row.sealed_account_number).toMatch(/^c1\./);
      }
    }
    // No column of any row of any table equals a CVV or holds a PAN, bank number or the Stripe key.
    for (const table of ['payment_methods', 'transactions', 'gateways', 'wrapped_keys', 'environments', 'organizations', 'access_secrets'] as const) {
      const all = (await server.core.store.db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>;
      for (const row of all) {
        for (const [column, value] of Object.entries(row)) {
          if (value === null) continue;
          const text = String(value);
          expect(cvvs.includes(text), `${table}.${column} equals a CVV`).toBe(false);
          expect(findCardData(text, secrets).map(maskFinding), `${table}.${column}`).toEqual([]);
          for (const cvv of cvvs) expect(cvvInContext(text, cvv), `${table}.${column} holds a CVV`).toBe(false);
        }
      }
    }
  });

  it('keeps the Stripe key sealed and intact', async () => {
    const row = await server.core.store.db.selectFrom('gateways').selectAll().where('environment_key', '=', productionKey).executeTakeFirstOrThrow();
    expect(row.sealed_credentials).toMatch(/^c1\./);
    expect(await server.core.gateways.openCredentials(gatewayOf(row))).toEqual({ login: stripeKey });
  });

  /** Findings in a dump or file text: known values, Luhn-valid runs, CVVs in a field context. */
  function scan(text: string): string[] {
    const found = findCardData(text, secrets).map(maskFinding);
    for (const cvv of cvvs) if (cvvInContext(text, cvv)) found.push(`CVV ${cvv.length} digits in context`);
    // The Stripe key in pieces (e.g. escaped), by its distinctive prefix.
    if (text.includes('sk_live_')) found.push('sk_live_ prefix');
    return found;
  }

  if (store === 'sqlite') {
    it('the SQLite file, WAL and shared memory hold no card data, bank number or Stripe key', () => {
      const file = (server.core.config.store as { path: string }).path;
      const parts = [file, `${file}-wal`, `${file}-shm`].filter((part) => fs.existsSync(part));
      expect(parts).toContain(file);
      let scanned = 0;
      for (const part of parts) {
        const bytes = fs.readFileSync(part);
        scanned += bytes.length;
        const text = bytes.toString('latin1');
        expect(scan(text), part).toEqual([]);
      }
      // The sealed data is in the bytes scanned (the scan reads the right files).
      const all = parts.map((part) => fs.readFileSync(part).toString('latin1')).join('');
      expect(all).toContain(`c1.d-${server.init.environment_key}-1.`);
      expect(all).toContain(`c1.d-${productionKey}-1.`);
      expect(scanned).toBeGreaterThan(0);
    });

    it('control: the file scan does see a card number written in clear', async () => {
      // Delimited on purpose: SQLite packs a row's values back to back, so a value ending in a PAN
      // may run straight into the next column's digits (a created_at), where no delimited-run scan
      // can tell it apart. That is why every value this suite stores is also searched by name.
      await server.core.tenancy.createOrganization(`control ${CONTROL_PAN} end`);
      const file = (server.core.config.store as { path: string }).path;
      const text = [file, `${file}-wal`].filter((part) => fs.existsSync(part)).map((part) => fs.readFileSync(part).toString('latin1')).join('\n');
      expect(scan(text)).toContain(maskFinding(CONTROL_PAN));
    });
  } else {
    it('pg_dump --data-only holds no card data, bank number or Stripe key', async () => {
      const url = (server.core.config.store as { url: string }).url;
      const { stdout } = await run('pg_dump', ['--data-only', '--no-owner', url], { maxBuffer: 64 * 1024 * 1024 });
      expect(stdout).toContain('COPY public.payment_methods');
      expect(stdout).toContain(`c1.d-${server.init.environment_key}-1.`);
      expect(stdout).toContain(`c1.d-${productionKey}-1.`);
      expect(scan(stdout)).toEqual([]);
      // No COPY field is exactly a CVV (pg_dump writes one row per line, fields tab-separated).
      const copyLines = stdout.split('\n').filter((line) => line.includes('\t'));
      expect(copyLines.length).toBeGreaterThan(0);
      for (const line of copyLines) {
        for (const field of line.split('\t')) expect(cvvs.includes(field), 'a dumped field equals a CVV').toBe(false);
      }

      // Control: a card number written in clear does show up in the dump scan.
      await server.core.tenancy.createOrganization(`control ${CONTROL_PAN}`);
      const control = await run('pg_dump', ['--data-only', '--no-owner', url], { maxBuffer: 64 * 1024 * 1024 });
      expect(scan(control.stdout)).toContain(maskFinding(CONTROL_PAN));
    });
  }
});
