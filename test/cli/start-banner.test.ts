import fs from 'node:fs';
import net from 'node:net';
import { Agent, request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { credentialsBlock, startBanner } from '../../src/cli/start-banner.js';
import { parseInitBlock, runCoffer, startServe, useCofferProcesses } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * What `serve` tells its operator at start (README, "Two commands"): one piece of text, the
 * credentials once. A start that fails after initialising must still show them, or they are lost.
 */

vi.setConfig({ testTimeout: 120_000 });
const defer = useCofferProcesses();

const init = {
  organization_token: 'OrgToken',
  environment_key: 'EnvKey',
  access_secret_key: 'SecretKey',
  access_secret: 'TheSecret',
  owner: { user: { email: 'owner@coffer.local' }, password: 'ThePassword' },
} as Parameters<typeof credentialsBlock>[0];

describe('the start banner', () => {
  it('puts the credentials, the generated key, the CA and the portal before the listening line, in that order', () => {
    const text = startBanner({ init, generatedMasterKeyFile: '/d/master.key', caPath: '/d/tls/ca.pem', portalUrl: 'https://h:1/portal/', url: 'https://h:1' });
    expect(text.split('\n')).toEqual([
      'Coffer initialised an empty database. Save these now: the access secret and the password are not shown again.',
      '  organization_token  OrgToken',
      '  environment_key     EnvKey',
      '  access_secret_key   SecretKey',
      '  access_secret       TheSecret',
      '  portal_email        owner@coffer.local',
      '  portal_password     ThePassword',
      'Generated a local master key: /d/master.key (the data cannot be read without it; production sets COFFER_MASTER_KEY)',
      'Local CA certificate (pass to clients, e.g. curl --cacert): /d/tls/ca.pem',
      'Merchant portal: https://h:1/portal/',
      'Coffer listening on https://h:1',
      '',
    ]);
  });

  it('is three lines on a later start, one with TLS and the portal off', () => {
    expect(startBanner({ init: null, generatedMasterKeyFile: null, caPath: '/d/tls/ca.pem', portalUrl: 'https://h:1/portal/', url: 'https://h:1' }).trimEnd().split('\n')).toHaveLength(3);
    expect(startBanner({ init: null, generatedMasterKeyFile: null, caPath: null, portalUrl: null, url: 'http://h:1' })).toBe('Coffer listening on http://h:1\n');
  });

  it('leaves out the portal lines when no owner was made', () => {
    expect(credentialsBlock({ ...init, owner: null }).join('\n')).not.toContain('portal_');
  });
});

describe('a first start that cannot listen', () => {
  it('still prints the credentials it made, once, and exits non-zero; the next start prints none', async () => {
    const data = tempDir('coffer-banner-');
    defer(data.cleanup);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;

    const failed = await runCoffer(['serve'], { COFFER_DATA_DIR: data.dir, COFFER_PORT: String(port) }, 60_000);
    expect(failed.code, failed.stderr).not.toBe(0);
    const shown = parseInitBlock(failed.stderr);
    expect(shown, failed.stderr).not.toBeNull();
    expect(failed.stderr).toMatch(/^ {2}portal_password +[A-Za-z0-9]{20}$/m);
    expect(failed.stderr).toMatch(/EADDRINUSE/);
    expect(failed.stderr).not.toContain('Coffer listening');
    // Shown on the terminal only, never in the logs.
    expect(failed.stdout).not.toContain(shown!.access_secret);

    const next = await startServe({ COFFER_DATA_DIR: data.dir });
    expect(next.init).toBeNull();
    // The credentials shown by the failed start are the installation's.
    const agent = new Agent({ connect: { ca: fs.readFileSync(next.caPath!, 'utf8') } });
    try {
      const api = await request(`${next.url}/v1/gateways.json`, {
        dispatcher: agent,
        headers: { authorization: `Basic ${Buffer.from(`${shown!.environment_key}:${shown!.access_secret}`).toString('base64')}` },
      });
      await api.body.dump();
      expect(api.statusCode).toBe(200);
    } finally {
      await agent.close();
    }
    next.kill('SIGTERM');
    await next.exited;
  });
});
