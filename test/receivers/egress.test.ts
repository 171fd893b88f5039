import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayFaultError, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { EgressGuard, EgressLookupError, EgressRefusedError, forbiddenCategory, type LookupFunction } from '../../src/receivers/egress.js';
import { HttpDeliveryClient } from '../../src/receivers/http-delivery.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';

/**
 * The egress guard (ARCHITECTURE.md habit 8): forbidden ranges, the operator's allowances, DNS
 * answered by an injected lookup (what a hostile resolver would say), and pinning proven over a
 * real connection.
 */

/** A lookup that answers `answers[n]` on its n-th call (the last one after that) and counts calls. */
function scriptedLookup(...answers: Array<Array<[string, 4 | 6]> | NodeJS.ErrnoException>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup = ((hostname: string, _options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    setImmediate(() => {
      if (answer instanceof Error) callback(answer, []);
      else callback(null, (answer ?? []).map(([address, family]) => ({ address, family })));
    });
  }) as LookupFunction & { calls: string[] };
  lookup.calls = calls;
  return lookup;
}

const never: LookupFunction = () => {
  throw new Error('DNS must not be asked for an IP literal');
};

async function refusal(work: Promise<unknown>): Promise<EgressRefusedError> {
  const error = await work.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EgressRefusedError);
  return error as EgressRefusedError;
}

describe('EgressGuard: IP literals (no DNS)', () => {
  const guard = new EgressGuard([], never);

  it.each([
    ['127.0.0.1', 'loopback address'],
    ['127.8.9.10', 'loopback address'],
    ['::1', 'loopback address'],
    ['10.0.0.1', 'private address'],
    ['172.16.5.4', 'private address'],
    ['192.168.1.1', 'private address'],
    ['fd12:3456::1', 'private address'],
    ['169.254.169.254', 'metadata address'],
    ['fd00:ec2::254', 'metadata address'],
    ['169.254.1.1', 'link-local address'],
    ['fe80::1', 'link-local address'],
    ['0.0.0.0', 'unspecified address'],
    ['::', 'unspecified address'],
    ['100.64.0.1', 'shared address space'],
    ['224.0.0.1', 'multicast address'],
    ['ff02::1', 'multicast address'],
    ['240.0.0.1', 'reserved address'],
    ['255.255.255.255', 'reserved address'],
    ['::ffff:127.0.0.1', 'loopback address'],
    ['::ffff:a9fe:a9fe', 'metadata address'],
    ['::ffff:10.1.2.3', 'private address'],
    ['64:ff9b::7f00:1', 'loopback address'],
    ['64:ff9b::a00:1', 'private address'],
    ['2002:a9fe:a9fe::1', 'metadata address'],
    // Every IPv6 form that embeds an IPv4 address is judged by that address (docs/receivers.md, "Egress guard").
    ['::ffff:0:127.0.0.1', 'loopback address'], // SIIT (IPv4-translated)
    ['::ffff:0:a9fe:a9fe', 'metadata address'],
    ['::7f00:1', 'loopback address'], // IPv4-compatible
    ['::10.0.0.1', 'private address'],
    ['64:ff9b:1::a00:1', 'private address'], // NAT64 local-use prefix
    ['2002:7f00:1::', 'loopback address'], // 6to4
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback address'], // Teredo, client 127.0.0.1 (inverted)
    ['2001:0:a00:1::', 'private address'], // Teredo, server 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'reserved address'], // Teredo with public ends: still a tunnel
    ['2606:4700::5efe:a00:1', 'private address'], // ISATAP
    ['2606:4700::200:5efe:7f00:1', 'loopback address'], // ISATAP, universal/local bit set
  ])('refuses %s (%s), naming the host and the category', async (address, category) => {
    const error = await refusal(guard.resolve(address));
    expect(error.reason).toBe(category);
    expect(error.message).toBe(`Egress to ${address} refused: ${category}.`);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('lets the public address %s through as is', async (address) => {
    await expect(guard.resolve(address)).resolves.toEqual({ address, family: address.includes(':') ? 6 : 4 });
  });

  it('refuses bracketed IPv6 and the forms the URL parser turns into 127.0.0.1', async () => {
    for (const url of ['http://[::1]:8080/', 'http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/']) {
      const error = await refusal(guard.check(new URL(url), ['http']));
      expect(error.reason).toBe('loopback address');
    }
  });

  it('classifies without throwing: public addresses have no category', () => {
    expect(forbiddenCategory('1.1.1.1')).toBeNull();
    expect(forbiddenCategory('198.18.0.1')).toBe('reserved address');
    expect(forbiddenCategory('not an address')).toBe('reserved address');
  });
});

describe('EgressGuard: allowances (COFFER_EGRESS_ALLOW)', () => {
  it('127.0.0.1 is refused without an allowance and allowed by the address or its /8', async () => {
    expect((await refusal(new EgressGuard([], never).resolve('127.0.0.1'))).reason).toBe('loopback address');
    await expect(new EgressGuard(['127.0.0.1'], never).resolve('127.0.0.1')).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    await expect(new EgressGuard(['127.0.0.0/8'], never).resolve('127.0.0.1')).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    // An allowance covers exactly what it names.
    expect((await refusal(new EgressGuard(['127.0.0.1'], never).resolve('127.0.0.2'))).reason).toBe('loopback address');
    expect((await refusal(new EgressGuard(['10.0.0.0/8'], never).resolve('169.254.169.254'))).reason).toBe('metadata address');
  });

  it('an allowed IPv4 address also covers its IPv4-mapped IPv6 form', async () => {
    const guard = new EgressGuard(['127.0.0.1'], never);
    await expect(guard.resolve('::ffff:127.0.0.1')).resolves.toEqual({ address: '::ffff:127.0.0.1', family: 6 });
    await expect(new EgressGuard(['::1'], never).resolve('::1')).resolves.toEqual({ address: '::1', family: 6 });
  });

  it('a host name allowance accepts whatever that name resolves to, case-insensitively; other names are still checked', async () => {
    const lookup = scriptedLookup([['10.1.2.3', 4]]);
    const guard = new EgressGuard(['vault-sidecar.internal'], lookup);
    await expect(guard.resolve('Vault-Sidecar.Internal')).resolves.toEqual({ address: '10.1.2.3', family: 4 });
    expect((await refusal(guard.resolve('other.internal'))).reason).toBe('private address');
  });
});

describe('EgressGuard: host names (DNS asked once)', () => {
  it('refuses a name that resolves to a private address', async () => {
    const lookup = scriptedLookup([['10.0.0.7', 4]]);
    const error = await refusal(new EgressGuard([], lookup).resolve('receiver.example'));
    expect(error.reason).toBe('private address');
    expect(error.message).toBe('Egress to receiver.example refused: private address.');
    expect(error.message).not.toContain('10.0.0.7');
    expect(lookup.calls).toEqual(['receiver.example']);
  });

  it('refuses a name that resolves to public AND private addresses, whatever the order', async () => {
    for (const answer of [
      [['93.184.215.14', 4], ['169.254.169.254', 4]],
      [['::1', 6], ['93.184.215.14', 4]],
    ] as Array<Array<[string, 4 | 6]>>) {
      const error = await refusal(new EgressGuard([], scriptedLookup(answer)).resolve('mixed.example'));
      expect(['metadata address', 'loopback address']).toContain(error.reason);
    }
  });

  it('returns the first address of a public answer, with its family', async () => {
    const lookup = scriptedLookup([['2606:4700::6810:84e5', 6], ['104.16.132.229', 4]]);
    await expect(new EgressGuard([], lookup).resolve('public.example')).resolves.toEqual({ address: '2606:4700::6810:84e5', family: 6 });
    expect(lookup.calls).toHaveLength(1);
  });

  it('a name that does not resolve is an EgressLookupError (nothing to connect to), not a refusal', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    const error = await new EgressGuard([], scriptedLookup(notFound)).resolve('nowhere.example').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressLookupError);
    expect((error as EgressLookupError).code).toBe('ENOTFOUND');
    expect((error as Error).message).toBe('Unable to resolve nowhere.example (ENOTFOUND).');
    const empty = await new EgressGuard([], scriptedLookup([])).resolve('empty.example').catch((caught: unknown) => caught);
    expect(empty).toBeInstanceOf(EgressLookupError);
  });

  it('the real resolver: localhost is refused unless allowed', async () => {
    expect((await refusal(new EgressGuard([]).resolve('localhost'))).reason).toBe('loopback address');
    const allowed = await new EgressGuard(['localhost']).resolve('localhost');
    expect(['127.0.0.1', '::1']).toContain(allowed.address);
  });
});

describe('EgressGuard.check: the URL itself', () => {
  const guard = new EgressGuard(['127.0.0.1'], never);

  it('returns the pinned target with the default or explicit port', async () => {
    await expect(guard.check(new URL('https://127.0.0.1/a?b=c'), ['https'])).resolves.toMatchObject({ hostname: '127.0.0.1', port: 443, address: '127.0.0.1', family: 4 });
    await expect(guard.check(new URL('http://127.0.0.1:8080/'), ['http'])).resolves.toMatchObject({ port: 8080 });
  });

  it('refuses a scheme not in the list and user info in the URL, without echoing either', async () => {
    expect((await refusal(guard.check(new URL('ftp://127.0.0.1/file'), ['http', 'https']))).message).toBe('Egress to 127.0.0.1 refused: scheme not allowed.');
    const withUser = await refusal(guard.check(new URL('https://user:s3cret@127.0.0.1/'), ['https']));
    expect(withUser.message).toBe('Egress to 127.0.0.1 refused: credentials in the URL.');
    expect(withUser.message).not.toContain('s3cret');
  });
});

describe('EgressGuard: DNS is pinned for the connection', () => {
  let receiver: RecordingReceiver;
  let decoy: RecordingReceiver;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    // Same port on another loopback address: where a second resolution would send the request.
    decoy = await RecordingReceiver.start({ host: '127.0.0.2', port: receiver.port });
  });
  afterAll(async () => {
    await receiver?.close();
    await decoy?.close();
  });

  it('resolves once and connects to that address even though a second lookup would answer differently', async () => {
    const lookup = scriptedLookup([['127.0.0.1', 4]], [['127.0.0.2', 4]]);
    const client = new HttpDeliveryClient(new EgressGuard(['127.0.0.0/8'], lookup));
    const result = await client.send({ url: `http://receiver.test:${receiver.port}/pinned`, method: 'POST', headers: '', body: 'x', timeoutMs: 5000, sensitive: [] });
    expect(result.status).toBe(200);
    expect(lookup.calls).toEqual(['receiver.test']);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.localAddress).toBe('127.0.0.1');
    // Host names the name, not the pinned address.
    expect(receiver.received[0]?.headers.host).toBe(`receiver.test:${receiver.port}`);
    expect(decoy.received).toHaveLength(0);
  });

  it('refuses before connecting when the one answer is forbidden: nothing reaches the receiver', async () => {
    const lookup = scriptedLookup([['127.0.0.1', 4]]);
    const client = new HttpDeliveryClient(new EgressGuard([], lookup));
    const before = receiver.received.length;
    const error = await refusal(client.send({ url: `http://rebind.test:${receiver.port}/?card=4111111111111111`, method: 'POST', headers: '', body: '4111111111111111', timeoutMs: 5000, sensitive: [] }));
    expect(error.message).toBe('Egress to rebind.test refused: loopback address.');
    expect(receiver.received.length).toBe(before);
    expect(lookup.calls).toHaveLength(1);
  });
});

describe('GatewayHttpClient: operator endpoint overrides go through the guard', () => {
  let gateway: RecordingReceiver;
  let other: RecordingReceiver;

  beforeAll(async () => {
    gateway = await RecordingReceiver.start();
    other = await RecordingReceiver.start({ host: '127.0.0.2', port: gateway.port });
  });
  afterAll(async () => {
    await gateway?.close();
    await other?.close();
  });

  const call = (http: GatewayHttpClient, url: string, transcript: TranscriptEntry[] = []) =>
    http.send({ method: 'POST', url, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'amount=100', timeoutMs: 2000 }, transcript);

  it('checks the override on every call, pins each call to the address it got, and keeps a pool per address', async () => {
    const lookup = scriptedLookup([['127.0.0.1', 4]], [['127.0.0.1', 4]], [['127.0.0.2', 4]]);
    const http = new GatewayHttpClient({ guard: new EgressGuard(['127.0.0.0/8'], lookup), overrides: [`http://gateway.test:${gateway.port}/`] });
    try {
      const url = `http://gateway.test:${gateway.port}/v1/payment_intents`;
      expect((await call(http, url)).status).toBe(200);
      expect((await call(http, url)).status).toBe(200);
      expect(gateway.received.map((r) => r.headers.host)).toEqual([`gateway.test:${gateway.port}`, `gateway.test:${gateway.port}`]);
      // DNS now answers another address: the next call goes there, on a fresh pool.
      expect((await call(http, url)).status).toBe(200);
      expect(other.received).toHaveLength(1);
      expect(lookup.calls).toEqual(['gateway.test', 'gateway.test', 'gateway.test']);
    } finally {
      await http.close();
    }
  });

  it('an override that is refused or does not resolve is a GatewayFaultError (nothing sent), noted in the transcript', async () => {
    const before = gateway.received.length;
    const refused = new GatewayHttpClient({ guard: new EgressGuard([], never), overrides: [gateway.url] });
    const transcript: TranscriptEntry[] = [];
    const error = await call(refused, `${gateway.url}/v1/payment_intents`, transcript).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).message).toBe('Unable to connect to the gateway.');
    expect((error as GatewayFaultError).detail).toBe('egress refused (loopback address)');
    expect(transcript.at(-1)?.text).toBe('[!!] egress refused (loopback address)');

    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    const unresolved = new GatewayHttpClient({ guard: new EgressGuard([], scriptedLookup(notFound)), overrides: ['https://gone.test'] });
    const lookupError = await call(unresolved, 'https://gone.test/v1/charges').catch((caught: unknown) => caught);
    expect(lookupError).toBeInstanceOf(GatewayFaultError);
    expect((lookupError as GatewayFaultError).detail).toBe('ENOTFOUND');
    // A resolver that never answers costs the call's timeout, no more.
    const hung = new GatewayHttpClient({ guard: new EgressGuard([], () => undefined), overrides: ['https://hung.test'] });
    const started = performance.now();
    const timedOut = await call(hung, 'https://hung.test/v1/charges').catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(timedOut).toBeInstanceOf(GatewayFaultError);
    expect((timedOut as GatewayFaultError).detail).toBe('dns_timeout');
    expect(gateway.received.length).toBe(before);
    await Promise.all([refused.close(), unresolved.close(), hung.close()]);
  });

  it('built-in endpoints (not overridden) are not checked', async () => {
    const http = new GatewayHttpClient({ guard: new EgressGuard([], never), overrides: ['https://override.example'] });
    try {
      expect((await call(http, `${gateway.url}/built-in`)).status).toBe(200);
    } finally {
      await http.close();
    }
  });
});
