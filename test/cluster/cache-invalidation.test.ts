import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCore, type Core } from '../../src/app.js';
import { buildApp } from '../../src/http-app.js';
import { createLogger } from '../../src/logger.js';
import { AccessSecretsRepo } from '../../src/store/repositories/access-secrets.repo.js';
import { EnvironmentsRepo } from '../../src/store/repositories/environments.repo.js';
import { GatewaysRepo } from '../../src/store/repositories/gateways.repo.js';
import { OrganizationsRepo } from '../../src/store/repositories/organizations.repo.js';
import { setCardCapture, tokenizationBody } from '../card-capture/helpers.js';
import { ApiClient } from '../helpers/client.js';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The definition cache's proof (docs/caching.md): node B keeps authentication, environments, organizations and gateways in
 * memory, yet a change made through node A is obeyed by the very next request on B (no sleep,
 * no retry), on a SQLite file shared by two connections and on PostgreSQL. Each case first shows
 * B answering from its cache (the repository read is not called), then makes the change on A.
 */

const VISA = '4111111111111111';

/** A second Coffer on node A's store: its own core (cache, connections), HTTP app and client. */
interface SecondNode {
  core: Core;
  client: ApiClient;
  close(): Promise<void>;
}

async function startSecondNode(a: TestServer): Promise<SecondNode> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const core = await buildCore(a.core.config);
  const app: FastifyInstance = buildApp(core, createLogger('info', sink), null);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new ApiClient(address, null, { user: a.init.environment_key, password: a.init.access_secret });
  return {
    core,
    client,
    close: async () => {
      await client.close();
      await app.close();
      await core.close();
      // Node B's log, like node A's, must hold no card data.
      expect(lines.flatMap((line) => findCardData(line))).toEqual([]);
    },
  };
}

describe.each(storeKinds)('two nodes on one %s store: a change on A is obeyed by the next request on B', (store) => {
  let a: TestServer;
  let b: SecondNode;
  let environmentKey: string;

  beforeAll(async () => {
    a = await startServer({ store, tls: false });
    b = await startSecondNode(a);
    environmentKey = a.init.environment_key;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });
  afterEach(() => vi.restoreAllMocks());

  it('a revoked secret is refused by B at once', async () => {
    const created = await a.client.sendJson('POST', `/v1/environments/${environmentKey}/access_secrets.json`, { access_secret: { name: 'to revoke', role: 'transact' } });
    expect(created.status, created.text).toBe(201);
    const { key, secret } = created.json().access_secret as { key: string; secret: string };
    const onB = b.client.withAuth({ user: environmentKey, password: secret });
    expect((await onB.get('/v1/gateways.json')).status).toBe(200);

    const lookups = vi.spyOn(AccessSecretsRepo.prototype, 'findLiveByHash');
    const hitsBefore = b.core.definitionCache.stats().regions.auth!.hits;
    expect((await onB.get('/v1/gateways.json')).status).toBe(200);
    expect(lookups).not.toHaveBeenCalled();
    expect(b.core.definitionCache.stats().regions.auth!.hits).toBe(hitsBefore + 1);

    const revoked = await a.client.request('DELETE', `/v1/environments/${environmentKey}/access_secrets/${key}`);
    expect(revoked.status, revoked.text).toBe(204);
    // The spy sees both nodes: forget A's own reads.
    lookups.mockClear();
    const refused = await onB.get('/v1/gateways.json');
    expect(refused.status).toBe(401);
    expect(refused.json().errors[0].key).toBe('errors.access_denied');
    // B read the store again because the generation moved, and found no live secret.
    expect(lookups).toHaveBeenCalledTimes(1);
    // The admin secret B had cached too is read again once, then served from the cache again.
    expect((await b.client.get('/v1/gateways.json')).status).toBe(200);
    expect((await b.client.get('/v1/gateways.json')).status).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('a redacted gateway is refused by B at once', async () => {
    const gateway = await createTestGateway(a.client);
    const card = await createRetainedCard(a.client, VISA);
    const purchase = () => b.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } });
    expect((await purchase()).status).toBe(200);

    const reads = vi.spyOn(GatewaysRepo.prototype, 'find');
    const warm = await purchase();
    expect(warm.status, warm.text).toBe(200);
    expect(warm.json().transaction.succeeded).toBe(true);
    expect(reads).not.toHaveBeenCalled();

    const redacted = await a.client.request('PUT', `/v1/gateways/${gateway}/redact.json`);
    expect(redacted.status, redacted.text).toBe(200);
    reads.mockClear();
    const refused = await purchase();
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json().transaction).toMatchObject({ succeeded: false, state: 'failed', message_key: 'messages.cannot_use_redacted_gateway' });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a deactivated organization is refused writes by B at once, and may read', async () => {
    const gateway = await createTestGateway(a.client);
    const card = await createRetainedCard(a.client, VISA);
    const purchase = () => b.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } });
    expect((await purchase()).status).toBe(200);
    const organizationReads = vi.spyOn(OrganizationsRepo.prototype, 'find');
    expect((await purchase()).status).toBe(200);
    expect(organizationReads).not.toHaveBeenCalled();

    // What `coffer organizations deactivate` runs, here on node A's core.
    await a.core.tenancy.setOrganizationActive(a.init.organization_token, false);
    try {
      const refused = await purchase();
      expect(refused.status, refused.text).toBe(402);
      expect(refused.json().errors[0].key).toBe('errors.account_inactive');
      expect((await b.client.get('/v1/gateways.json')).status).toBe(200);
    } finally {
      await a.core.tenancy.setOrganizationActive(a.init.organization_token, true);
    }
    expect((await purchase()).status).toBe(200);
  });

  it('an environment change is obeyed by B at once (enhanced security on the card form)', async () => {
    const tokenize = () => b.client.sendJson('POST', `/v1/payment_methods/restricted.json?environment_key=${environmentKey}`, tokenizationBody(VISA), { auth: null });
    expect((await tokenize()).status).toBe(201);
    const environmentReads = vi.spyOn(EnvironmentsRepo.prototype, 'find');
    expect((await tokenize()).status).toBe(201);
    expect(environmentReads).not.toHaveBeenCalled();

    await setCardCapture(a.client, environmentKey, { enhanced_iframe_security: true });
    try {
      const refused = await tokenize();
      expect(refused.status, refused.text).toBe(403);
      expect(refused.json().errors[0].key).toBe('errors.invalid_signature');
    } finally {
      await setCardCapture(a.client, environmentKey, { enhanced_iframe_security: false });
    }
    expect((await tokenize()).status).toBe(201);
  });

  it('a rotated data key: B opens the re-encrypted credentials of a gateway it had cached', async () => {
    const live = await a.core.tenancy.createEnvironment(a.init.organization_token, 'live', true);
    const login = `sk_live_CACHE${Date.now()}`;
    const created = await a.client.withAuth({ user: live.key, password: a.init.access_secret }).sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login } });
    expect(created.status, created.text).toBe(201);
    const token = created.json().gateway.token as string;

    const requestOnB = async () => {
      const context = await b.core.auth.authenticate(live.key, a.init.access_secret, 'transact', false);
      const gateway = await b.core.gateways.show(context!.environment, token);
      return { gateway, credentials: await b.core.gateways.openCredentials(gateway) };
    };
    const first = await requestOnB();
    expect(first.credentials).toEqual({ login });
    expect((await requestOnB()).gateway.sealed).toBe(first.gateway.sealed);

    const rotated = await a.core.keyRotation.rotateData(live.key, 100);
    expect(rotated.reencrypted).toBeGreaterThan(0);
    const after = await requestOnB();
    expect(after.gateway.sealed.credentials).not.toBe(first.gateway.sealed.credentials);
    expect(after.credentials).toEqual({ login });
  });

  it("never serves one environment's secret for another", async () => {
    const other = await a.core.tenancy.createEnvironment(a.init.organization_token, 'other', false);
    const created = await a.client.sendJson('POST', `/v1/environments/${environmentKey}/access_secrets.json`, { access_secret: { name: 'scoped', role: 'transact' } });
    const { secret } = created.json().access_secret as { secret: string };
    for (let i = 0; i < 2; i++) {
      expect((await b.core.auth.authenticate(environmentKey, secret, 'transact', false))?.environment.key).toBe(environmentKey);
      expect(await b.core.auth.authenticate(other.key, secret, 'transact', false)).toBeNull();
    }
    // The organization-wide admin secret gets each environment's own row.
    for (let i = 0; i < 2; i++) {
      expect((await b.core.auth.authenticate(environmentKey, a.init.access_secret, 'admin', true))?.environment.key).toBe(environmentKey);
      expect((await b.core.auth.authenticate(other.key, a.init.access_secret, 'admin', true))?.environment.key).toBe(other.key);
    }
  });
});
