import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { cardForms, holds, numberedProbe } from './echo-probes.js';
import { filledForm, pageWords, portalForms, portalLinks, type PortalForm } from './portal-forms.js';

/*
 * The portal side of docs/security.md's "Errors: messages never include submitted values". The
 * pages and forms come from the portal itself: every page reachable from its home by links is
 * read as an owner (who sees every form), and every form on them is submitted with a card number
 * in each field alone and in all fields at once, from a freshly read page (its CSRF and one-time
 * tokens). An error page (4xx, 5xx) must not hold that number in its words (outside the form
 * controls, which may show the form again as typed). Each submission uses a number of its own, so
 * a value an earlier submission stored and a page now lists is not taken for an echo.
 */

const PASSWORD = 'correct horse battery staple';

const MAX_PAGES = 200;
/** The form's own tokens: a probe in them only meets the CSRF check, so "every field" leaves them be. */
const FORM_TOKENS = new Set(['_csrf', '_once']);

interface Answer {
  status: number;
  location: string | undefined;
  text: string;
}

interface FoundForm {
  page: string;
  form: PortalForm;
}

describe('the portal echoes no submitted card number', () => {
  let server: TestServer;
  let agent: Agent;
  let gateway: string;
  let formKeys = 0;
  const cookies = new Map<string, string>();

  /** A browser without the leak guard of ApiClient: a page may show a form again as it was typed. */
  async function browse(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<Answer> {
    const headers: Record<string, string> = { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await request(`${server.client.baseUrl}${path}`, { method, headers, body: form?.toString(), dispatcher: agent });
    const setCookie = response.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie]) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (/Max-Age=0/i.test(line)) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.location;
    return { status: response.statusCode, location: typeof location === 'string' ? location : undefined, text: await response.body.text() };
  }

  /**
   * Values that let a blank form pass, so a probe in one field reaches the checks behind the
   * others (a workflow's gateways are looked up only once its key and name are given).
   */
  function validValues(form: PortalForm): Record<string, string> {
    const byName: Record<string, string> = { key: `probe-${++formKeys}`, name: 'Probe', default_target: gateway, email: `probe-${formKeys}@example.com`, hostnames: 'https://receiver.example', cn: 'probe.example' };
    return Object.fromEntries(form.fields.filter((field) => field.value === '' && byName[field.name] !== undefined).map((field) => [field.name, byName[field.name] as string]));
  }

  /** Every page reachable from the portal's home by its links, and the forms on them. */
  async function crawl(): Promise<FoundForm[]> {
    const queue = ['/portal/'];
    const seen = new Set(queue);
    const forms = new Map<string, FoundForm>();
    while (queue.length > 0 && seen.size <= MAX_PAGES) {
      const path = queue.shift() as string;
      const answer = await browse('GET', path);
      const next = answer.location !== undefined && answer.location.startsWith('/portal/') ? [answer.location] : portalLinks(answer.text);
      for (const link of next) {
        if (!seen.has(link)) {
          seen.add(link);
          queue.push(link);
        }
      }
      for (const form of portalForms(answer.text)) {
        forms.set(`${form.method} ${form.action}`, { page: path, form });
        // A filter or chooser (GET) as submitted untouched leads to more pages (a gateway type's form).
        const chosen = `${form.action}?${filledForm(form, {}).toString()}`;
        if (form.method === 'get' && form.action.startsWith('/portal/') && !seen.has(chosen)) {
          seen.add(chosen);
          queue.push(chosen);
        }
      }
    }
    return [...forms.values()];
  }

  beforeAll(async () => {
    server = await startServer();
    agent = new Agent({ connect: { ca: server.ca as string } });
    const api = server.client;
    gateway = await createTestGateway(api);
    const paymentMethod = await createRetainedCard(api, '4111111111111111');
    await api.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: paymentMethod } });
    await api.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://receiver.example' } });
    await api.sendJson('POST', '/v1/certificates/generate.json', { certificate: { cn: 'probe.example' } });
    await api.sendJson('POST', '/v1/workflows.json', { workflow: { key: 'probe', name: 'Probe', default_target: { gateway_token: gateway } } });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'member@example.com', role: 'viewer', password: PASSWORD });
    const signInPage = await browse('GET', '/portal/sign-in');
    const signInForm = portalForms(signInPage.text).find((form) => form.action === '/portal/sign-in') as PortalForm;
    const signedIn = await browse('POST', '/portal/sign-in', filledForm(signInForm, { email: 'owner@example.com', password: PASSWORD }));
    expect(signedIn.status, signedIn.text).toBe(303);
  });

  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  it('in any answer to any form of any page, each field alone and all at once', { timeout: 300_000 }, async () => {
    const found = await crawl();
    // The forms a signed-in owner has: environments, gateways, secrets, workflows, team, account, filters…
    expect(found.length).toBeGreaterThan(15);
    const findings: string[] = [];
    let probes = 0;
    for (const { page, form } of found) {
      const names = [...new Set(form.fields.map((field) => field.name))];
      const variants = [...names.map((name) => [name]), names.filter((name) => !FORM_TOKENS.has(name))].filter((fields) => fields.length > 0);
      for (const fields of variants) {
        const pan = numberedProbe(probes + 1);
        const fresh = portalForms((await browse('GET', page)).text).find((candidate) => candidate.method === form.method && candidate.action === form.action);
        if (fresh === undefined) continue; // An earlier probe changed the page (a form that shows once).
        probes += 1;
        const body = filledForm(fresh, { ...validValues(fresh), ...Object.fromEntries(fields.map((name) => [name, pan])) });
        const answer = form.method === 'post' ? await browse('POST', form.action, body) : await browse('GET', `${form.action}?${body.toString()}`);
        const words = pageWords(answer.text);
        if (answer.status >= 400 && holds(words, pan)) {
          const at = Math.min(words.length, ...cardForms(pan).map((written) => words.indexOf(written)).filter((index) => index >= 0));
          findings.push(`${form.method.toUpperCase()} ${form.action} [${fields.length === 1 ? fields[0] : 'every field'}]: ${answer.status} …${words.slice(Math.max(0, at - 120), at).replace(/\s+/g, ' ')}<the number>`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(probes).toBeGreaterThan(40);
  });
});
