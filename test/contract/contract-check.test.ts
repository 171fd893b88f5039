import { describe, expect, it } from 'vitest';
import { checkAgainstContract, ContractMismatchError } from '../helpers/contract-check.js';

/*
 * The e2e client's contract check (docs/openapi.md) itself: it passes answers the document
 * describes and fails the others, so a green e2e run means the answers matched.
 */

const gateway = {
  token: 'GwToken',
  gateway_type: 'test',
  name: 'Spreedly Test',
  description: null,
  merchant_profile_key: null,
  sub_merchant_key: null,
  characteristics: { supports_purchase: true },
  credentials: [],
  gateway_settings: {},
  gateway_specific_fields: [],
  payment_methods: ['credit_card'],
  state: 'retained',
  redacted: false,
  sandbox: false,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};
const JSON_TYPE = 'application/json; charset=utf-8';

describe('the contract check', () => {
  it('passes a documented answer, with or without the suffix and query', () => {
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 200, JSON_TYPE, JSON.stringify({ gateway }))).not.toThrow();
    expect(() => checkAgainstContract('GET', '/v1/gateways.json?count=1', 200, JSON_TYPE, JSON.stringify({ gateways: [gateway] }))).not.toThrow();
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken', 404, JSON_TYPE, JSON.stringify({ errors: [{ key: 'errors.gateway_not_found', message: 'Unable to find the specified gateway.' }] }))).not.toThrow();
  });

  it('fails a body that does not match, naming the field and its value', () => {
    const wrong = { gateway: { ...gateway, redacted: 'no' } };
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 200, JSON_TYPE, JSON.stringify(wrong))).toThrow(ContractMismatchError);
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 200, JSON_TYPE, JSON.stringify(wrong))).toThrow(/\/gateway\/redacted must be boolean.*is "no"/);
    // The body under the wrong root key.
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 200, JSON_TYPE, JSON.stringify({ receiver: gateway }))).toThrow(/must have required property 'gateway'/);
  });

  it('fails a status the document does not list for the operation', () => {
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 418, JSON_TYPE, '{}')).toThrow(/answered 418, a status the OpenAPI document does not list/);
  });

  it('fails a JSON Content-Type whose body is not JSON, or a JSON body where none is documented', () => {
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.json', 200, JSON_TYPE, '<gateway/>')).toThrow(/not JSON/);
    expect(() => checkAgainstContract('DELETE', '/v1/environments/Env/access_secrets/Key.json', 204, JSON_TYPE, '{}')).toThrow(/gives no JSON body/);
  });

  it('takes a decline (422 with the transaction) or an error body on a gateway call', () => {
    expect(() => checkAgainstContract('POST', '/v1/gateways/GwToken/purchase.json', 422, JSON_TYPE, JSON.stringify({ errors: [{ key: 'errors.invalid', message: 'x', attribute: 'amount' }] }))).not.toThrow();
    expect(() => checkAgainstContract('POST', '/v1/gateways/GwToken/purchase.json', 422, JSON_TYPE, JSON.stringify({ transaction: { token: 'x' } }))).toThrow(ContractMismatchError);
  });

  it('leaves alone what the document does not describe: other routes, XML and plain text', () => {
    expect(() => checkAgainstContract('GET', '/portal/login', 200, 'text/html', '<html/>')).not.toThrow();
    expect(() => checkAgainstContract('GET', '/v1/nowhere.json', 404, JSON_TYPE, '{}')).not.toThrow();
    expect(() => checkAgainstContract('GET', '/v1/openapi.xml', 404, 'application/xml', '<errors/>')).not.toThrow();
    expect(() => checkAgainstContract('GET', '/v1/gateways/GwToken.xml', 200, 'application/xml', '<gateway/>')).not.toThrow();
  });
});
