import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeJson, encodeJson } from '../../src/http/format/json-codec.js';
import { acceptAllows, contentTypeMatches, splitFormat } from '../../src/http/format/negotiation.js';
import { decodeXml, encodeXml, encodeXmlErrors } from '../../src/http/format/xml-codec.js';
import { WireList, WireMessage } from '../../src/http/format/wire.js';
import { AppError } from '../../src/domain/errors.js';
import { parseXml } from '../helpers/client.js';

const when = new Date('2024-03-20T19:49:29.123Z');

describe('wire encoders', () => {
  const tree = {
    token: 'abc',
    amount: 100,
    succeeded: true,
    created_at: when,
    order_id: null,
    message: new WireMessage('messages.transaction_succeeded', 'Succeeded!'),
    payment_methods: new WireList('payment_method', ['credit_card', 'bank_account']),
    empty: new WireList('credential', []),
    nested: { state: 'NJ', ratio: 1.5 },
    verification_value: '',
  };

  it('renders JSON with real types, message_key before message, second-precision UTC', () => {
    expect(encodeJson('transaction', tree)).toBe(
      '{"transaction":{"token":"abc","amount":100,"succeeded":true,"created_at":"2024-03-20T19:49:29Z","order_id":null,' +
        '"message_key":"messages.transaction_succeeded","message":"Succeeded!","payment_methods":["credit_card","bank_account"],' +
        '"empty":[],"nested":{"state":"NJ","ratio":1.5},"verification_value":""}}',
    );
  });

  it('renders Rails-style typed XML in field order', () => {
    const xml = encodeXml('transaction', tree);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<transaction>')).toBe(true);
    for (const fragment of [
      '<amount type="integer">100</amount>',
      '<succeeded type="boolean">true</succeeded>',
      '<created_at type="dateTime">2024-03-20T19:49:29Z</created_at>',
      '<order_id nil="true"/>',
      '<message key="messages.transaction_succeeded">Succeeded!</message>',
      '<payment_method>credit_card</payment_method>',
      '<empty/>',
      '<ratio type="float">1.5</ratio>',
      '<verification_value/>',
    ]) {
      expect(xml).toContain(fragment);
    }
    const order = ['<token>', '<amount', '<succeeded', '<created_at', '<order_id', '<message', '<payment_methods>', '<nested>'].map((t) => xml.indexOf(t));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('escapes markup in values and keeps free-form keys well-formed', () => {
    const xml = encodeXml('thing', { note: '<b>&"x"</b>', data: { 'my key': 'v', '1st': 'w' } });
    const parsed = parseXml(xml);
    expect(parsed.thing.note).toBe('<b>&"x"</b>');
    expect(parsed.thing.data).toEqual({ my_key: 'v', _1st: 'w' });
  });

  it('renders error envelopes with attributes', () => {
    const xml = encodeXmlErrors([
      { key: 'errors.blank', attribute: 'first_name', message: "First name can't be blank" },
      { key: 'errors.circuit_breaker_open', message: 'open', extra: { gateway_name: 'Stripe' } },
    ]);
    expect(xml).toContain(`<error key="errors.blank" attribute="first_name">First name can't be blank</error>`);
    expect(xml).toContain('<error key="errors.circuit_breaker_open" gateway_name="Stripe">open</error>');
  });

  it('round-trips arbitrary text through XML', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        // XML 1.0 cannot carry these control characters at all; strip them from the input.
        // eslint-disable-next-line no-control-regex
        const clean = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').trim();
        const parsed = parseXml(encodeXml('root', { value: clean }));
        expect(String(parsed.root.value ?? '')).toBe(clean);
      }),
    );
  });
});

describe('request decoders', () => {
  it('decodes JSON under its root and drops __proto__', () => {
    expect(decodeJson('{"gateway":{"gateway_type":"test","sandbox":true}}')).toEqual({ root: 'gateway', fields: { gateway_type: 'test', sandbox: true } });
    expect(decodeJson('{}')).toEqual({ root: null, fields: {} });
    const polluted = decodeJson('{"gateway":{"__proto__":{"admin":true}}}');
    expect(Object.keys(polluted.fields)).toEqual([]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it.each(['{', '[]', '"x"', '{"a":1,"b":2}', '{"gateway":[1]}'])('refuses malformed JSON %s', (text) => {
    expect(() => decodeJson(text)).toThrow(AppError);
  });

  it('decodes untyped XML as text, dropping empty elements and keeping repeats as lists', () => {
    const decoded = decodeXml(
      '<?xml version="1.0"?><transaction><amount>100</amount><order_id/><ip nil="true"/><retained>true</retained>' +
        '<credentials><credential><name>a</name></credential><credential><name>b</name></credential></credentials></transaction>',
    );
    expect(decoded).toEqual({
      root: 'transaction',
      fields: { amount: '100', retained: 'true', credentials: { credential: [{ name: 'a' }, { name: 'b' }] } },
      // Kept aside for the few fields where "sent empty" is a change (docs/wire-compatibility.md).
      emptyElements: ['order_id', 'ip'],
    });
  });

  it('honours Rails typing, but never turns a long number into an imprecise one', () => {
    const decoded = decodeXml(
      '<payment_method><metadata><n type="integer">123</n><b type="boolean">false</b><s other="x">text</s></metadata>' +
        '<number type="integer">4444333322221111455</number></payment_method>',
    );
    expect(decoded.fields).toEqual({ metadata: { n: 123, b: false, s: 'text' }, number: '4444333322221111455' });
  });

  it.each(['<a><b></a>', '<a/><b/>', '<!DOCTYPE x><a/>', 'plain', '<a>text</a>'])('refuses malformed XML %s', (text) => {
    expect(() => decodeXml(text)).toThrow(AppError);
  });
});

describe('negotiation', () => {
  it('splits the suffix off the path, keeping the query', () => {
    expect(splitFormat('/v1/gateways.xml?since_token=a.json')).toEqual({ url: '/v1/gateways?since_token=a.json', format: 'xml', suffixed: true });
    expect(splitFormat('/v1/gateways/abc.json')).toEqual({ url: '/v1/gateways/abc', format: 'json', suffixed: true });
    expect(splitFormat('/v1/transactions/abc/transcript')).toEqual({ url: '/v1/transactions/abc/transcript', format: 'json', suffixed: false });
  });

  it('matches Content-Type per format', () => {
    expect(contentTypeMatches('json', 'application/json;charset=utf-8')).toBe(true);
    expect(contentTypeMatches('xml', 'text/xml')).toBe(true);
    expect(contentTypeMatches('xml', 'Application/XML; charset=UTF-8')).toBe(true);
    expect(contentTypeMatches('json', 'text/json')).toBe(false);
    expect(contentTypeMatches('json', undefined)).toBe(false);
  });

  it('reads Accept lists with q-values', () => {
    expect(acceptAllows('json', undefined)).toBe(true);
    expect(acceptAllows('json', 'application/json, text/plain, */*')).toBe(true);
    expect(acceptAllows('xml', 'text/html, application/xml;q=0.5')).toBe(true);
    expect(acceptAllows('xml', 'application/xml;q=0')).toBe(false);
    expect(acceptAllows('json', 'text/html')).toBe(false);
  });
});
