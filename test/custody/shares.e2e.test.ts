import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { ApiClient } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { startCustodyNode, type CustodyNode } from '../helpers/custody-node.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import type { InitResult } from '../../src/services/tenancy.service.js';

/*
 * The shares provider (docs/key-custody.md, "shares"): a node starts sealed and serves nothing but
 * health, custodians unseal it over its unseal listener with M of N shares, a wrong share is
 * refused, and on PostgreSQL two nodes of one database each unseal on their own.
 */

const VISA = '4111111111111111';

async function submit(node: CustodyNode, share: string): Promise<{ status: number; body: any }> {
  const res = await request(node.unsealUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ share }) });
  return { status: res.statusCode, body: await res.body.json() };
}

async function expectSealed(client: ApiClient, gateway: string | null): Promise<void> {
  const paths = ['/v1/gateways.json', '/v1/payment_methods.json', '/v1/no_such_route.json', ...(gateway === null ? [] : [`/v1/gateways/${gateway}.json`])];
  for (const path of paths) {
    const res = await client.get(path);
    expect(res.status, `${path}: ${res.text}`).toBe(503);
    expect(res.json().errors[0].key).toBe('errors.vault_sealed');
  }
  // The portal too (its own error page).
  const portal = await client.get('/portal/login');
  expect(portal.status, portal.text).toBe(503);
  const tokenize = await client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } } });
  expect(tokenize.status).toBe(503);
  expect(tokenize.json().errors[0].key).toBe('errors.vault_sealed');
  expect((await client.get('/healthz')).status).toBe(200);
  const ready = await client.get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.json()).toMatchObject({ status: 'sealed', store: 'ok', master_key: 'sealed' });
}

interface SplitInstallation {
  env: Record<string, string>;
  shares: string[];
  credentials: InitResult;
  cleanup(): Promise<void>;
}

/** A database whose master key is split 3 of 5: what `coffer init --key-shares 5 --threshold 3` does (the CLI suite runs the command itself). */
async function splitInstallation(kind: 'sqlite' | 'postgres'): Promise<SplitInstallation> {
  const data = tempDir();
  const pg = kind === 'postgres' ? await createPostgresDatabase() : null;
  const env = { COFFER_DATA_DIR: data.dir, COFFER_MASTER_KEY_PROVIDER: 'shares', ...(pg === null ? {} : { COFFER_DATABASE_URL: pg.url }) };
  const first = await startCustodyNode(env);
  try {
    const shares = await first.core.custody.seal!.initialise(5, 3);
    const credentials = await first.core.tenancy.init();
    return {
      env,
      shares,
      credentials,
      cleanup: async () => {
        await pg?.drop();
        data.cleanup();
      },
    };
  } finally {
    await first.close();
  }
}

describe.each(storeKinds)('shares master key provider (%s)', (kind) => {
  let env: Record<string, string>;
  let shares: string[];
  let credentials: InitResult;
  let installation: SplitInstallation;

  beforeAll(async () => {
    installation = await splitInstallation(kind);
    ({ env, shares, credentials } = installation);
  });
  afterAll(() => installation.cleanup());

  it('starts sealed: 503 errors.vault_sealed on everything but health; M shares unseal it; a wrong share is refused', async () => {
    const node = await startCustodyNode(env);
    try {
      const client = node.client(credentials);
      await expectSealed(client, null);
      const status = await request(node.unsealUrl!);
      expect(await status.body.json()).toEqual({ sealed: true, initialised: true, submitted: 0, threshold: 3, shares: 5 });

      // A share of another split key, and a malformed one: refused, counted nowhere, never echoed or logged.
      const foreign = 'ab'.repeat(33);
      const refused = await submit(node, foreign);
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'share' });
      expect(JSON.stringify(refused.body)).not.toContain(foreign);
      expect((await submit(node, 'not hex')).status).toBe(422);

      expect((await submit(node, shares[0]!)).body).toMatchObject({ sealed: true, submitted: 1 });
      expect((await submit(node, shares[0]!)).status).toBe(422);
      expect((await submit(node, shares[3]!)).body).toMatchObject({ sealed: true, submitted: 2 });
      await expectSealed(client, null);
      expect((await submit(node, shares[4]!)).body).toMatchObject({ sealed: false });

      const gateway = await createTestGateway(client);
      const card = (await addPaymentMethod(client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 3, year: 2035 }, retained: true })).payment_method.token;
      const bought = await client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
      expect(bought.status, bought.text).toBe(200);
      expect((await client.get('/readyz')).json()).toMatchObject({ status: 'ready', master_key: 'ok' });

      const logs = node.logs.join('\n');
      expect(logs).toContain('unseal share refused');
      expect(logs).toContain('vault unsealed');
      for (const share of [...shares, foreign]) expect(logs).not.toContain(share);
    } finally {
      await node.close();
    }
  });

});

describe('the unseal listener', () => {
  let installation: SplitInstallation;

  beforeAll(async () => {
    installation = await splitInstallation('sqlite');
  });
  afterAll(() => installation.cleanup());

  it('refuses a body without a share and malformed JSON, forgets submitted shares on DELETE, 404s elsewhere, answers JSON', async () => {
    const node = await startCustodyNode(installation.env);
    try {
      const post = async (body: string) => {
        const res = await request(node.unsealUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return { status: res.statusCode, type: res.headers['content-type'], body: (await res.body.json()) as any };
      };
      const blank = await post('{}');
      expect(blank).toMatchObject({ status: 422, body: { errors: [{ key: 'errors.blank', attribute: 'share' }] } });
      expect(blank.type).toMatch(/application\/json/);
      expect((await post('{"share":')).status).toBe(422);
      expect((await post(JSON.stringify({ share: installation.shares[1] }))).body).toMatchObject({ sealed: true, submitted: 1 });
      const reset = await request(node.unsealUrl!, { method: 'DELETE' });
      expect(await reset.body.json()).toMatchObject({ sealed: true, submitted: 0 });
      // After the reset one more share is not enough.
      expect((await post(JSON.stringify({ share: installation.shares[2] }))).body).toMatchObject({ sealed: true, submitted: 1 });
      const elsewhere = await request(node.unsealUrl!.replace('/unseal', '/v1/gateways.json'));
      expect(elsewhere.statusCode).toBe(404);
      await elsewhere.body.dump();
    } finally {
      await node.close();
    }
  });

  it('a database with no split key: the node says so and refuses shares', async () => {
    const data = tempDir();
    const node = await startCustodyNode({ COFFER_DATA_DIR: data.dir, COFFER_MASTER_KEY_PROVIDER: 'shares' });
    try {
      expect((await request(node.unsealUrl!).then((res) => res.body.json())) as any).toMatchObject({ sealed: true, initialised: false });
      const res = await request(node.unsealUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ share: installation.shares[0] }) });
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(await res.body.json())).toContain('coffer init --key-shares');
    } finally {
      await node.close();
      data.cleanup();
    }
  });
});

describe('shares master key provider: two nodes on one PostgreSQL database', () => {
  let installation: SplitInstallation;

  beforeAll(async () => {
    installation = await splitInstallation('postgres');
  });
  afterAll(() => installation.cleanup());

  it('each node unseals on its own', async () => {
    const { env, shares, credentials } = installation;
    const a = await startCustodyNode(env);
    const b = await startCustodyNode(env);
    try {
      const clientA = a.client(credentials);
      const clientB = b.client(credentials);
      for (const share of [shares[0]!, shares[1]!, shares[2]!]) await submit(a, share);
      expect(a.core.custody.sealed()).toBe(false);
      const gateway = await createTestGateway(clientA);
      const card = (await addPaymentMethod(clientA, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 3, year: 2035 }, retained: true })).payment_method.token;
      // B is still sealed although A is not: unsealing is per node.
      await expectSealed(clientB, gateway);
      for (const share of [shares[2]!, shares[3]!, shares[4]!]) await submit(b, share);
      const bought = await clientB.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
      expect(bought.status, bought.text).toBe(200);
      expect(bought.json().transaction.succeeded).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
