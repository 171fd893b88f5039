import { describe, expect, it } from 'vitest';
import { decodeXml, encodeXml, encodeXmlErrors } from '../../src/http/format/xml-codec.js';
import { WireErrors, WireList, WireMessage } from '../../src/http/format/wire.js';
import { AppError } from '../../src/domain/errors.js';

/*
 * The hand-written XML writer replaced fast-xml-parser's generic builder on the response path
 * (four times cheaper). Its output must stay byte for byte what the builder printed: the
 * expected documents below are the builder's own output for these trees, taken before the
 * switch (and 45,000 random trees compared equal at the time, see docs/benchmarks.md).
 */

const when = new Date('2024-03-20T19:49:29.123Z');

describe('XML writer', () => {
  it('prints every kind of value exactly as the builder did', () => {
    const tree = {
      text: `can't <b> & "q"`,
      empty: '',
      none: null,
      int: 42,
      float: -1.5,
      zero: -0,
      yes: true,
      at: when,
      message: new WireMessage('messages.k', null),
      plain: new WireMessage(null, 'hi'),
      list: new WireList('item', ['a', '', null, { deep: [1, []] }]),
      none_listed: new WireList('x', []),
      errors: new WireErrors([{ key: 'errors.blank', message: "can't be blank", attribute: 'first "name"' }]),
      data: { 'my key': { '1st': 'v', '': 'w' }, nested: {} },
    };
    expect(encodeXml('thing', tree)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<thing>\n  <text>can\'t &lt;b&gt; &amp; "q"</text>\n  <empty/>\n  <none nil="true"/>\n' +
        '  <int type="integer">42</int>\n  <float type="float">-1.5</float>\n  <zero type="integer">0</zero>\n  <yes type="boolean">true</yes>\n' +
        '  <at type="dateTime">2024-03-20T19:49:29Z</at>\n  <message nil="true" key="messages.k"/>\n  <plain>hi</plain>\n  <list>\n    <item>a</item>\n' +
        '    <item/>\n    <item nil="true"/>\n    <item>\n      <deep type="array">\n        <item type="integer">1</item>\n        <item type="array"/>\n' +
        '      </deep>\n    </item>\n  </list>\n  <none_listed/>\n  <errors>\n    <error key="errors.blank" attribute="first &quot;name&quot;">can\'t be blank</error>\n' +
        '  </errors>\n  <data>\n    <my_key>\n      <_1st>v</_1st>\n      <_>w</_>\n    </my_key>\n    <nested/>\n  </data>\n</thing>\n',
    );
  });

  it('prints an empty list root as one empty element', () => {
    expect(encodeXml('transactions', new WireList('transaction', []))).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<transactions/>\n');
  });

  it('prints error envelopes with extra attributes escaped for attributes', () => {
    expect(
      encodeXmlErrors([
        { key: 'errors.gateway_busy', message: 'Too <many> & "quoted"', extra: { gateway_name: "O'Brien & Co" } },
        { key: 'errors.invalid', message: 'Since token is invalid', attribute: 'since_token' },
      ]),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n  <error key="errors.gateway_busy" gateway_name="O&apos;Brien &amp; Co">Too &lt;many&gt; &amp; "quoted"</error>\n' +
        '  <error key="errors.invalid" attribute="since_token">Since token is invalid</error>\n</errors>\n',
    );
  });
});

describe('XML reader limits', () => {
  it('refuses XML nested deeper than the parser allows as malformed (422), not as a fault', () => {
    const deep = `<transaction>${'<a>'.repeat(150)}1${'</a>'.repeat(150)}</transaction>`;
    let thrown: unknown;
    try {
      decodeXml(deep);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(422);
    expect((thrown as AppError).entries[0]).toMatchObject({ key: 'errors.malformed_request', message: 'The request body could not be parsed: invalid XML.' });
  });

  it('still reads nesting within the limit', () => {
    expect(decodeXml(`<transaction>${'<a>'.repeat(20)}1${'</a>'.repeat(20)}</transaction>`).root).toBe('transaction');
  });
});
