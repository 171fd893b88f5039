import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestGateway } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

const CARD = { first_name: 'Ada', last_name: 'Lovelace', number: '4111111111111111', month: 4, year: 2031 };
const CARD_XML = '<credit_card><first_name>Ada</first_name><last_name>Lovelace</last_name><number>4111111111111111</number><month>4</month><year>2031</year></credit_card>';

/** A value `levels` deep: {"a":{"a":…"leaf"}} (one level is one object). */
function deep(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}

function deepXml(levels: number): string {
  return `${'<a>'.repeat(levels)}leaf${'</a>'.repeat(levels)}`;
}

/**
 * Free-form fields are bounded at input (32 levels, 1000 keys, 64 KiB), no
 * stored string holds a C0 control character, and XML references are decoded or refused.
 */
describe('input bounds: depth, keys, size, control characters and XML references', () => {
  let server: TestServer;
  let gateway: string;

  beforeAll(async () => {
    server = await startServer();
    gateway = await createTestGateway(server.client);
  });
  afterAll(() => server?.close());

  const createJson = (extra: Record<string, unknown>, credit = CARD) => server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: credit, ...extra } });
  const createXml = (inner: string) => server.client.sendXml('POST', '/v1/payment_methods.xml', `<payment_method>${inner}</payment_method>`);

  async function paymentMethodCount(): Promise<number> {
    const row = await server.core.store.db.selectFrom('payment_methods').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('data and metadata: 32 levels are stored, 33 are 422 errors.invalid, in JSON and XML', async () => {
    const ok = await createJson({ data: deep(32) });
    expect(ok.status, ok.text).toBe(201);
    const before = await paymentMethodCount();
    for (const field of ['data', 'metadata']) {
      const res = await createJson({ [field]: deep(33) });
      expect(res.status).toBe(422);
      expect(res.json().errors).toEqual([{ attribute: field, key: 'errors.invalid', message: `${field === 'data' ? 'Data' : 'Metadata'} is nested more than 32 levels deep` }]);
    }
    expect((await createXml(`${CARD_XML}<data>${deepXml(32)}</data>`)).status).toBe(201);
    const xml = await createXml(`${CARD_XML}<data>${deepXml(33)}</data>`);
    expect(xml.status).toBe(422);
    expect(xml.text).toContain('<error key="errors.invalid" attribute="data">Data is nested more than 32 levels deep</error>');
    expect(await paymentMethodCount()).toBe(before + 1);
  });

  it('the 15 KB body 2,500 levels deep of the report is refused', async () => {
    const body = `{"payment_method":{"credit_card":${JSON.stringify(CARD)},"data":${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}}}`;
    const res = await server.client.request('POST', '/v1/payment_methods.json', { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'data' });
  });

  it('caps free-form keys (1000) and size (64 KiB)', async () => {
    const keys = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, 1]));
    expect((await createJson({ data: keys })).json().errors).toEqual([{ attribute: 'data', key: 'errors.invalid', message: 'Data cannot have more than 1000 keys' }]);
    expect((await createJson({ data: { big: 'x'.repeat(64 * 1024) } })).json().errors).toEqual([{ attribute: 'data', key: 'errors.invalid', message: 'Data cannot be larger than 64 KiB' }]);
    expect((await createJson({ data: { fine: 'x'.repeat(60_000) } })).status).toBe(201);
  });

  it('gateway_specific_fields on a purchase: too deep is 422 before any gateway call', async () => {
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, {
      transaction: { credit_card: CARD, amount: 100, currency_code: 'USD', gateway_specific_fields: { test: deep(40) } },
    });
    expect(res.status).toBe(422);
    expect(res.json().errors).toEqual([{ attribute: 'gateway_specific_fields', key: 'errors.invalid', message: 'Gateway specific fields is nested more than 32 levels deep' }]);
  });

  it('refuses C0 control characters (but tab, CR, LF) in any string, values and keys, in JSON and XML', async () => {
    const name = await createJson({}, { ...CARD, first_name: 'Ada\u0001' });
    expect(name.status).toBe(422);
    expect(name.json().errors).toEqual([{ attribute: 'first_name', key: 'errors.invalid', message: 'First name contains a control character' }]);
    const key = await createJson({ metadata: { 'k\u001f': 'v' } });
    expect(key.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'metadata' });
    const nul = await createJson({ email: 'a\u0000@example.com' });
    expect(nul.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'email' });
    const fine = await createJson({ data: { note: 'line one\r\n\tline two' } });
    expect(fine.status, fine.text).toBe(201);
    const xml = await createXml(CARD_XML.replace('Lovelace', 'Love\u0002lace'));
    expect(xml.status).toBe(422);
    expect(xml.text).toContain('<error key="errors.invalid" attribute="last_name">Last name contains a control character</error>');
  });

  it('XML: decodes numeric references and the five entities, refuses undefined entities and forbidden characters', async () => {
    const ok = await createXml(CARD_XML.replace('<first_name>Ada</first_name>', '<first_name>caf&#xE9; &#233; &lt;&gt;&amp;&quot;&apos;</first_name>') + '<data><body><![CDATA[&amp; stays]]></body></data>');
    expect(ok.status, ok.text).toBe(201);
    const token = ok.xml().transaction.payment_method.token;
    const shown = (await server.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
    expect(shown.first_name).toBe(`café é <>&"'`);
    expect(shown.data).toEqual({ body: '&amp; stays' });
    for (const [inner, message] of [
      ['&unknown;', 'The request body could not be parsed: it refers to an undefined entity.'],
      ['&#0;', 'The request body could not be parsed: a character reference names a character XML does not allow.'],
      ['&#x1;', 'The request body could not be parsed: a character reference names a character XML does not allow.'],
    ]) {
      const res = await createXml(CARD_XML.replace('<first_name>Ada</first_name>', `<first_name>A${inner}</first_name>`));
      expect(res.status).toBe(422);
      expect(res.text).toContain(`<error key="errors.malformed_request">${message}</error>`);
    }
  });
});
