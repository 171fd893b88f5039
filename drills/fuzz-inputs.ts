import fc from 'fast-check';

/**
 * Request bodies for the fuzz drill: valid examples of every resource, the same mutated
 * (fields removed, retyped, replaced by random JSON, nested deep), random JSON, and XML built
 * from all of those with Rails typing attributes, then mangled as text (cut short, spliced,
 * entity declarations, CDATA, two roots).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A test card number that passes every validation, so mutated bodies reach deep code. */
export const FUZZ_PAN = '4111111111111111';

/** Valid bodies, by root element: where mutations start. */
export function seedBodies(paymentMethodToken: string): Record<string, Json> {
  return {
    gateway: { gateway: { gateway_type: 'test', description: 'fuzz', gateway_settings: { timeout_seconds: 5 } } },
    payment_method: {
      payment_method: {
        credit_card: { first_name: 'Joe', last_name: 'Jones', number: FUZZ_PAN, verification_value: '123', month: 3, year: 2035, address1: '1 Main St', zip: '12345' },
        email: 'joe@example.com',
        metadata: { customer: 'c-42', vip: true },
        data: { note: 'x' },
        retained: true,
      },
    },
    transaction: {
      transaction: {
        payment_method_token: paymentMethodToken,
        amount: 100,
        currency_code: 'USD',
        order_id: 'o-1',
        retain_on_success: true,
        gateway_specific_fields: { test: { x: 1 } },
        shipping_address: { name: 'Joe', zip: '12345' },
      },
    },
    inline_transaction: { transaction: { amount: 100, currency_code: 'USD', credit_card: { first_name: 'Joe', last_name: 'Jones', number: FUZZ_PAN, month: 3, year: 2035 } } },
    environment: { environment: { name: 'fuzz', production: false } },
    access_secret: { access_secret: { name: 'fuzz', role: 'read' } },
    recache: { payment_method: { credit_card: { verification_value: '456' } } },
  };
}

/** Every path to a value inside `value` (objects by key, arrays by index). */
function pathsOf(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) value.forEach((child, index) => out.push(...pathsOf(child, [...prefix, index])));
  else if (value !== null && typeof value === 'object') for (const [key, child] of Object.entries(value)) out.push(...pathsOf(child, [...prefix, key]));
  return out;
}

type Mutation = { op: 'set' | 'delete' | 'wrap' | 'stringify' | 'rename'; at: number; value: Json; name: string };

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set', 'delete', 'wrap', 'stringify', 'rename'),
  at: fc.nat(),
  value: fc.oneof(fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>, fc.constantFrom<Json>('', ' ', '4111 1111 1111 1111', '-1', '1e400', 1e20, -0.5, 'true', '<b>', '__proto__')),
  name: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'number', 'amount', '', 'a b', '1x'), fc.string({ maxLength: 8 })),
});

/** Applies one mutation to a deep copy of `value`. */
export function mutate(value: Json, mutation: Mutation): Json {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  const paths = pathsOf(copy);
  const path = paths[mutation.at % paths.length] as Array<string | number>;
  if (path.length === 0) return mutation.op === 'wrap' ? [copy] : mutation.op === 'set' ? mutation.value : copy;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string, Json>)[key as string] as Json, copy) as Record<string, Json>;
  const key = path[path.length - 1] as string;
  if (mutation.op === 'set') parent[key] = mutation.value;
  else if (mutation.op === 'delete') delete parent[key];
  else if (mutation.op === 'wrap') parent[key] = [parent[key] as Json];
  else if (mutation.op === 'stringify') parent[key] = JSON.stringify(parent[key]);
  else if (!Array.isArray(parent)) {
    parent[mutation.name] = parent[key] as Json;
    delete parent[key];
  }
  return copy;
}

const TYPES = ['integer', 'boolean', 'array', 'datetime', 'float', 'yaml', ''];

/** XML for a JSON value, Rails style, with typing attributes chosen by `noise`. */
export function toXml(value: Json, noise: number[], depth = 0): string {
  const pick = (index: number) => noise[(index + depth) % Math.max(1, noise.length)] ?? 0;
  const element = (name: string, child: Json, index: number): string => {
    const safe = /^[A-Za-z_][\w.-]*$/.test(name) ? name : `_${name.replace(/[^\w.-]/g, '_')}`;
    const roll = pick(index) % 9;
    const attributes = roll === 0 ? ` type="${TYPES[pick(index + 1) % TYPES.length]}"` : roll === 1 ? ' nil="true"' : roll === 2 ? ' type="array"' : '';
    return `<${safe}${attributes}>${toXml(child, noise, depth + 1)}</${safe}>`;
  };
  if (value === null) return '';
  if (Array.isArray(value)) return value.map((child, index) => element('item', child, index)).join('');
  if (typeof value === 'object') return Object.entries(value).map(([name, child], index) => element(name, child, index)).join('');
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

const XML_ATTACKS = [
  '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><transaction><amount>&b;</amount></transaction>',
  '<!DOCTYPE x SYSTEM "file:///etc/passwd"><transaction><amount>1</amount></transaction>',
  '<transaction><amount><![CDATA[100]]></amount><!-- c --><?pi x?></transaction>',
  '<transaction></transaction><transaction></transaction>',
  '<transaction amount="1" __proto__="x"><__proto__><polluted>1</polluted></__proto__></transaction>',
  '<transaction><amount type="integer">99999999999999999999999</amount></transaction>',
  '\uFEFF<?xml version="1.0" encoding="UTF-16"?><gateway><gateway_type>test</gateway_type></gateway>',
];

/** A mangled copy of an XML text: cut, spliced or doubled. */
function mangle(text: string, how: number, at: number, insert: string): string {
  const position = text.length === 0 ? 0 : at % text.length;
  if (how % 4 === 0) return text.slice(0, position);
  if (how % 4 === 1) return `${text.slice(0, position)}${insert}${text.slice(position)}`;
  if (how % 4 === 2) return text + text;
  return text.replace(/<(\w+)/, `<$1 ${insert.replace(/[^\w]/g, '') || 'x'}="${insert.replace(/"/g, '')}"`);
}

/**
 * Nesting deep enough to find recursion without a limit: at the top, and inside the free-form
 * fields that are stored and echoed back (a payment method's `data`, gateway-specific fields).
 */
function deepNesting(depth: number, xml: boolean, where: number, paymentMethodToken: string): string {
  if (xml) return `<transaction>${'<a>'.repeat(depth)}1${'</a>'.repeat(depth)}</transaction>`;
  const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  if (where % 3 === 0) return `{"transaction":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
  if (where % 3 === 1) return `{"payment_method":{"credit_card":{"first_name":"J","last_name":"J","number":"${FUZZ_PAN}","month":3,"year":2035},"data":${deep}}}`;
  return `{"transaction":{"payment_method_token":"${paymentMethodToken}","amount":100,"currency_code":"USD","gateway_specific_fields":{"test":${deep}}}}`;
}

/** One body: its text and the format it was built in. */
export interface FuzzBody {
  format: 'json' | 'xml' | 'none' | 'raw';
  text: string;
}

/** Bodies of every kind, from the seeds. */
export function bodyArb(seeds: Record<string, Json>, paymentMethodToken: string): fc.Arbitrary<FuzzBody> {
  const seed = fc.constantFrom(...Object.values(seeds));
  const mutated = fc.tuple(seed, fc.array(mutationArb, { minLength: 1, maxLength: 4 })).map(([start, mutations]) => mutations.reduce(mutate, start));
  const randomRooted = fc.tuple(fc.constantFrom('transaction', 'payment_method', 'gateway', 'environment', 'access_secret', 'x'), fc.jsonValue({ maxDepth: 4 })).map(
    ([root, value]) => ({ [root]: value }) as Json,
  );
  const jsonValue = fc.oneof({ weight: 2, arbitrary: seed }, { weight: 5, arbitrary: mutated }, { weight: 2, arbitrary: randomRooted }, { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> });
  const noise = fc.array(fc.nat(100), { minLength: 1, maxLength: 8 });
  const xmlText = fc.tuple(jsonValue, noise).map(([value, bits]) => toXml(value, bits));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<FuzzBody>({ format: 'none', text: '' }) },
    { weight: 6, arbitrary: jsonValue.map((value): FuzzBody => ({ format: 'json', text: JSON.stringify(value) })) },
    { weight: 4, arbitrary: xmlText.map((text): FuzzBody => ({ format: 'xml', text })) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.oneof(xmlText, jsonValue.map((value) => JSON.stringify(value))), fc.nat(3), fc.nat(), fc.string({ maxLength: 12 })).map(
        ([text, how, at, insert]): FuzzBody => ({ format: text.startsWith('<') ? 'xml' : 'json', text: mangle(text, how, at, insert) }),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...XML_ATTACKS).map((text): FuzzBody => ({ format: 'xml', text })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean(), fc.nat()).map(([depth, xml, where]): FuzzBody => ({
        format: xml ? 'xml' : 'json',
        text: deepNesting(depth, xml, where, paymentMethodToken),
      })),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text): FuzzBody => ({ format: 'raw', text })) },
  );
}

/** Content-Type headers: the right one mostly, wrong or odd ones often enough. */
export const contentTypeArb = (format: FuzzBody['format']): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(format === 'xml' ? 'application/xml' : 'application/json') },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | undefined>(undefined, 'text/xml; charset=utf-8', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', '*/*', 'application/json, application/xml'),
    },
  );

/** Query strings list endpoints read (and some they do not). */
export const queryArb: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom('count', 'since_token', 'order', 'state', 'metadata[customer]', 'metadata[]', 'x', 'count[]'),
      fc.oneof(fc.constantFrom('1', '0', '-1', '100', '101', '1e3', 'desc', 'asc', 'DESC', 'retained,cached', 'succeeded,nope', '4111111111111111', ''), fc.string({ maxLength: 30 })),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`));
