import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/spawn.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { setCardCapture } from './helpers.js';

/* The script and frame pages as served: types, CSP frame-ancestors, refusals, no credentials. */

describe('card form pages and script', () => {
  let server: TestServer;
  const SHOP = 'https://shop.example';
  const frame = (query: Record<string, string>) => server.client.get(`/iframe/v1/frame.html?${new URLSearchParams(query).toString()}`, { auth: null, accept: 'text/html' });

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-card-capture.mjs')], { stdio: 'ignore' });
    server = await startServer();
    await setCardCapture(server.client, server.init.environment_key, { allowed_origins: [SHOP] });
  });
  afterAll(() => server.close());

  it('serves iframe-v1.min.js and its unminified twin defining Spreedly, without credentials', async () => {
    for (const file of ['/iframe/iframe-v1.min.js', '/iframe/iframe-v1.js']) {
      const res = await server.client.get(file, { auth: null, accept: '*/*' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(res.text).toContain('Spreedly');
      expect(res.text).toContain('tokenizeCreditCard');
    }
    const min = await server.client.get('/iframe/iframe-v1.min.js', { auth: null });
    const full = await server.client.get('/iframe/iframe-v1.js', { auth: null });
    expect(min.text.length).toBeLessThan(full.text.length);
  });

  it('a frame page for an allowed origin: its input, a label, CSP with frame-ancestors that origin only', async () => {
    const res = await frame({ field: 'number', environment_key: server.init.environment_key, origin: SHOP, channel: 'abcdefgh12345678' });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors https://shop.example",
    );
    expect(res.text).toContain('<label id="field-label" for="field-input"');
    expect(res.text).toContain('autocomplete="cc-number"');
  });

  it('refuses another origin (403), an unknown environment (404), bad parameters (422, frame-ancestors none)', async () => {
    const other = await frame({ field: 'cvv', environment_key: server.init.environment_key, origin: 'https://evil.example', channel: 'abcdefgh12345678' });
    expect(other.status).toBe(403);
    expect(other.text).toContain('data-refused="errors.origin_not_allowed"');
    expect(other.text).not.toContain('field-input');
    const unknown = await frame({ field: 'number', environment_key: 'nope', origin: SHOP, channel: 'abcdefgh12345678' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('data-refused="errors.access_denied"');
    for (const query of [
      { field: 'pin', environment_key: server.init.environment_key, origin: SHOP, channel: 'abcdefgh12345678' },
      { field: 'number', environment_key: server.init.environment_key, origin: 'https://shop.example/path', channel: 'abcdefgh12345678' },
      { field: 'number', environment_key: server.init.environment_key, origin: SHOP, channel: '"><script>' },
    ]) {
      const res = await frame(query);
      expect(res.status).toBe(422);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.text).not.toContain('<script');
    }
  });
});
