import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** The portal's imports: the jobs with their counts, one job's report, the import key; never a card number. */

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

describe.each(storeKinds)('portal imports (%s)', (store) => {
  let server: TestServer;
  let viewer: PortalClient;

  beforeAll(async () => {
    server = await startServer({ store });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    viewer = new PortalClient(server.client);
    await viewer.signIn('viewer@example.com', PASSWORD);
  });
  afterAll(() => server.close());

  it('lists the imports and shows a report with refused rows and new tokens', async () => {
    const env = server.init.environment_key;
    const environment = await server.core.tenancy.requireEnvironment(env);
    const file = [
      JSON.stringify({ token: 'PortalToken1', credit_card: { number: VISA, month: 1, year: 2040 } }),
      JSON.stringify({ token: 'portal-token-2', credit_card: { number: '5555555555554444', month: 1, year: 2040 } }),
      JSON.stringify({ token: 'PortalToken3', credit_card: { number: VISA, month: 1, year: 2040, verification_value: '123' } }),
    ].join('\n');
    const job = await server.core.imports.run(environment, await server.core.imports.start(environment), () => Readable.from([Buffer.from(file)]));

    const list = await viewer.get(`/portal/e/${env}/imports`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`/portal/e/${env}/imports/${job.token}`);
    expect(list.text).toContain('-----BEGIN PGP PUBLIC KEY BLOCK-----');
    const detail = await viewer.get(`/portal/e/${env}/imports/${job.token}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('<code>cvv_present</code>');
    expect(detail.text).toContain('portal-token-2');
    expect(detail.text).toContain(job.report.remapped[0]?.new_token as string);
    for (const page of [list.text, detail.text]) {
      expect(page).not.toContain(VISA);
      expect(page).not.toContain('5555555555554444');
    }
    expect((await viewer.get(`/portal/e/${env}/imports/nope`)).status).toBe(404);
    expect((await viewer.get(`/portal/e/${env}/payment-methods`)).text).toContain(`/portal/e/${env}/imports`);
  });
});
