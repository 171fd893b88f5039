import Mustache from 'mustache';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { checkTemplate, renderTemplate, TemplateError, TemplateLimitError } from '../../src/receivers/delivery-template.js';
import { DELIVER_BUDGET, EXPORT_BUDGET } from '../../src/receivers/template-limits.js';

const render = (template: string, view: object) => renderTemplate(template, view, DELIVER_BUDGET);
import { deliveryVariables, exportVariables, type DeliverySubject } from '../../src/receivers/template-variables.js';

/** Delivery templates (wire-reference §7) and the variables a receiver's template sees. */

const PAN = '4111111111111111';
const CVV = '123';

const card: DeliverySubject = {
  token: 'PmCardToken000000000000001',
  paymentMethodType: 'credit_card',
  createdAt: '2024-03-05T07:08:09.123Z',
  updatedAt: '2024-03-06T10:11:12.000Z',
  email: 'ada@example.com',
  fields: {
    first_name: 'Ada',
    last_name: 'Lovelace & Co <"Ltd">',
    month: 4,
    year: 2031,
    card_type: 'visa',
    last_four_digits: '1111',
    first_six_digits: '411111',
    address1: '1 Main St',
    address2: null,
    city: 'London',
    state: null,
    zip: 'SW1',
    country: 'GB',
    phone_number: '+44 20 0000',
    company: 'Analytical',
  },
  number: PAN,
  verificationValue: CVV,
};

const bank: DeliverySubject = {
  token: 'PmBankToken000000000000001',
  paymentMethodType: 'bank_account',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-02T00:00:00.000Z',
  email: null,
  fields: { first_name: 'Grace', last_name: 'Hopper', bank_name: 'First Bank', account_type: 'checking', account_holder_type: 'personal' },
  routingNumber: '021000021',
  accountNumber: '9876543210',
};

const thirdParty: DeliverySubject = {
  token: 'PmThirdToken00000000000001',
  paymentMethodType: 'third_party_token',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  email: null,
  fields: { third_party_token: 'cus_123', gateway_type: 'stripe' },
};

async function templateError(template: string, view: object = {}): Promise<TemplateError> {
  let caught: unknown = null;
  try {
    await render(template, view);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TemplateError);
  return caught as TemplateError;
}

describe('renderTemplate', () => {
  it('escapes {{ var }} as Ruby does (& < > " \'), keeps {{{ var }}} raw, and allows spaces inside the braces', async () => {
    const view = { name: `Tom & "Jerry" <cat> 'x'`, key: 'ab/c=d`' };
    expect(await render('{{ name }}|{{name}}', view)).toBe('Tom &amp; &quot;Jerry&quot; &lt;cat&gt; &#39;x&#39;|Tom &amp; &quot;Jerry&quot; &lt;cat&gt; &#39;x&#39;');
    expect(await render('{{{ name }}}|{{& name}}', view)).toBe(`Tom & "Jerry" <cat> 'x'|Tom & "Jerry" <cat> 'x'`);
    // Unlike mustache.js's default, / = and ` (common in API keys) are left alone.
    expect(await render('{{ key }}', view)).toBe('ab/c=d`');
    expect(await render('{{ missing }}-{{ nothing }}', { nothing: null })).toBe('-');
    expect(await render('{{ n }}', { n: 42 })).toBe('42');
  });

  it('renders sections over lists, inverted sections, and leaves plain text alone', async () => {
    const view = { payment_methods: [{ t: 'a' }, { t: 'b' }], empty: [] };
    expect(await render('{{#payment_methods}}[{{ t }}]{{/payment_methods}}', view)).toBe('[a][b]');
    expect(await render('{{^empty}}none{{/empty}}', view)).toBe('none');
    expect(await render('{"order_id": 12309}', view)).toBe('{"order_id": 12309}');
  });

  it('a syntax error is a TemplateError that names the problem, not the template; it maps to 422 errors.invalid on the field', async () => {
    const unclosed = await templateError(`{"card": "{{#credit_card_number}}${PAN}"}`);
    expect(unclosed.reason).toBe('unclosed section at 51');
    expect(unclosed.message).toBe('The template is invalid: unclosed section at 51.');
    expect(unclosed.message).not.toContain(PAN);
    expect((await templateError('{{ credit_card_number')).reason).toBe('unclosed tag at 21');
    expect((await templateError('{{/a}}')).reason).toBe('unopened section at 0');
    const appError = unclosed.toAppError('body');
    expect(appError).toBeInstanceOf(AppError);
    expect(appError.status).toBe(422);
    expect(appError.entries).toEqual([{ key: 'errors.invalid', attribute: 'body', message: 'Body is invalid' }]);
  });

  it('refuses partials and names that reach into the JavaScript object model', async () => {
    expect((await templateError('{{> header}}')).reason).toBe('partials are not supported');
    for (const template of ['{{ constructor }}', '{{ a.constructor.constructor }}', '{{#x.__proto__}}y{{/x.__proto__}}', '{{ toString }}', '{{{ f.prototype }}}', '{{^hasOwnProperty}}z{{/hasOwnProperty}}']) {
      expect((await templateError(template, { a: 'text', x: {}, f: 'y' })).reason).toBe('it names a reserved property');
    }
  });

  it('keeps nothing across renders: mustache.js default cache stays empty', async () => {
    Mustache.clearCache();
    const before = Mustache.templateCache as unknown as { _cache: Record<string, unknown> };
    await render('{{ unique_template_for_cache_check }}', {});
    expect(Object.keys(before._cache)).toHaveLength(0);
  });
});

describe('deliveryVariables', () => {
  it('exposes the credit card variables of wire-reference §7, the expiration date as YYYY-MM-01', async () => {
    const view = deliveryVariables(card, {});
    expect(view).toMatchObject({
      payment_method_token: card.token,
      credit_card_token: card.token,
      credit_card_number: PAN,
      credit_card_verification_value: CVV,
      credit_card_first_name: 'Ada',
      credit_card_last_name: 'Lovelace & Co <"Ltd">',
      credit_card_full_name: 'Ada Lovelace & Co <"Ltd">',
      credit_card_month: 4,
      credit_card_year: 2031,
      credit_card_expiration_date: '2031-04-01',
      credit_card_created_at: '2024-03-05 07:08:09 UTC',
      credit_card_updated_at: '2024-03-06 10:11:12 UTC',
      credit_card_type: 'visa',
      credit_card_email: 'ada@example.com',
      credit_card_address1: '1 Main St',
      credit_card_address2: null,
      credit_card_city: 'London',
      credit_card_state: null,
      credit_card_zip: 'SW1',
      credit_card_country: 'GB',
      credit_card_phone_number: '+44 20 0000',
      credit_card_company: 'Analytical',
      credit_card_last_four_digits: '1111',
      credit_card_first_six_digits: '411111',
    });
    expect(await render('{{ credit_card_expiration_date }} {{credit_card_last_name}}', view)).toBe('2031-04-01 Lovelace &amp; Co &lt;&quot;Ltd&quot;&gt;');
    expect(deliveryVariables({ ...card, fields: { ...card.fields, month: null } }, {}).credit_card_expiration_date).toBeNull();
  });

  it('a redacted card (no number, no CVV) renders those variables empty and keeps the stored last four', async () => {
    const view = deliveryVariables({ ...card, number: undefined, verificationValue: undefined, fields: { ...card.fields, first_six_digits: undefined } } as DeliverySubject, {});
    expect(await render('[{{ credit_card_number }}][{{ credit_card_verification_value }}][{{ credit_card_last_four_digits }}]', view)).toBe('[][][1111]');
  });

  it('exposes bank account and third-party token variables', async () => {
    expect(deliveryVariables(bank, {})).toMatchObject({
      payment_method_token: bank.token,
      bank_account_routing_number: '021000021',
      bank_account_account_number: '9876543210',
      bank_account_first_name: 'Grace',
      bank_account_last_name: 'Hopper',
      bank_account_full_name: 'Grace Hopper',
      bank_account_account_type: 'checking',
      bank_account_account_holder_type: 'personal',
      bank_account_bank_name: 'First Bank',
    });
    expect(deliveryVariables(thirdParty, {})).toMatchObject({ third_party_token_reference: 'cus_123', third_party_token_gateway_type: 'stripe', third_party_token_token: thirdParty.token });
  });

  it('receiver credentials are variables by name, and never replace a payment method variable', async () => {
    const view = deliveryVariables(card, { user_name: 'merchant-7', secret_password: 'p&ss', credit_card_number: '0000000000000000' });
    expect(await render('{{user_name}}:{{{ secret_password }}}:{{ credit_card_number }}', view)).toBe(`merchant-7:p&ss:${PAN}`);
  });
});

describe('exportVariables', () => {
  it('lists every payment method under payment_methods, with the credentials around them', async () => {
    const view = exportVariables([card, bank], { batch_id: 'B-1' });
    const rendered = await render('{{ batch_id }}\n{{#payment_methods}}{{ payment_method_token }},{{ credit_card_number }}{{ bank_account_account_number }}\n{{/payment_methods}}', view);
    expect(rendered).toBe(`B-1\n${card.token},${PAN}\n${bank.token},9876543210\n`);
  });

  it('a credential named like a variable cannot fill in for a payment method that lacks it', async () => {
    const view = exportVariables([bank], { credit_card_number: 'CREDENTIAL', payment_methods: 'x' });
    expect(await render('{{#payment_methods}}[{{ credit_card_number }}]{{/payment_methods}}', view)).toBe('[]');
  });
});

describe('template limits: nesting, size and render budget', () => {
  const nested = (depth: number, inner = '.') => `${'{{#items}}'.repeat(depth)}${inner}${'{{/items}}'.repeat(depth)}`;

  it('refuses sections nested deeper than 4, before any rendering, with a message naming the limit', async () => {
    expect(() => checkTemplate(nested(4), EXPORT_BUDGET, { items: 2 })).not.toThrow();
    for (const template of [nested(5), '{{#a}}{{^b}}{{#c}}{{^d}}{{#e}}x{{/e}}{{/d}}{{/c}}{{/b}}{{/a}}']) {
      expect(() => checkTemplate(template, EXPORT_BUDGET)).toThrow(TemplateLimitError);
      const error = await templateError(template, {});
      expect(error).toBeInstanceOf(TemplateLimitError);
      expect(error.toAppError('body').entries).toEqual([{ key: 'errors.invalid', attribute: 'body', message: 'Body is over a template limit: sections are nested more than 4 deep' }]);
    }
  });

  it('computes the worst case over the lists: steps multiply with each nested section over a list', () => {
    expect(() => checkTemplate(nested(4), EXPORT_BUDGET, { items: 30 })).not.toThrow(); // 30^4 ≈ 0.8 M steps
    expect(() => checkTemplate(nested(4), EXPORT_BUDGET, { items: 40 })).toThrow(/its sections would repeat too often \(\d+ steps, at most 2000000 for an export file\)/); // 2.6 M
    // Literal text counts too: 8 KiB repeated 2000 times is more than 10 MiB.
    expect(() => checkTemplate(`{{#items}}${'x'.repeat(8192)}{{/items}}`, EXPORT_BUDGET, { items: 2000 })).toThrow(/it would render more than 10 MiB for an export file/);
  });

  it('stops a render as soon as the output passes the budget, and counts loops that print nothing', async () => {
    const view = { long: 'L'.repeat(10_000), items: Array.from({ length: 60 }, () => ({})) };
    await expect(renderTemplate('{{long}}'.repeat(200), view, DELIVER_BUDGET)).rejects.toThrow('it renders more than 1 MiB for a delivery');
    // 60^4 ≈ 13 M silent repetitions: refused by the step budget, not run to the end.
    await expect(renderTemplate(nested(4, ''), view, EXPORT_BUDGET)).rejects.toThrow(/its sections repeat too often/);
  });

  it('renders a few milliseconds at a time: other callbacks run while a long render is under way', async () => {
    const view = { items: Array.from({ length: 70 }, (_, i) => ({ n: i })) };
    let ticks = 0;
    let rendering = true;
    const tick = () => {
      ticks += 1;
      if (rendering) setImmediate(tick);
    };
    setImmediate(tick);
    // 70^3 ≈ 343,000 repetitions: far more than one slice.
    const text = await renderTemplate(nested(3, '{{n}}'), view, EXPORT_BUDGET);
    rendering = false;
    expect(text.length).toBeGreaterThan(600_000);
    expect(ticks).toBeGreaterThan(5);
  });
});
