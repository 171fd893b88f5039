import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard, EgressRefusedError } from '../../src/receivers/egress.js';
import {
  InvalidSftpUrlError,
  SftpAuthError,
  SftpHostKeyError,
  SftpRefusedError,
  SftpTransferError,
  hostKeyFingerprint,
  isReadablePrivateKey,
  parseHostKeyPin,
  parseSftpUrl,
  uploadFile,
  type SftpTarget,
} from '../../src/receivers/sftp-upload.js';
import { describeWithSshd, startSshd, type TestSshd } from '../helpers/sshd.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The SFTP upload client of the export receivers, against a real OpenSSH sshd on 127.0.0.1
 * (helpers/sshd.ts; on when COFFER_TEST_SSHD is set), plus URL and pin parsing and the failures
 * that need no server (a closed port, a peer that never speaks SSH).
 */

const PAN = '4111111111111111';
/** Every message of every error this file provokes; none may carry a secret (last test). */
const messages: string[] = [];
const secrets: string[] = [PAN, 'url-password-xyz'];

async function failure<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => {
      throw new Error('expected the upload to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  messages.push((error as Error).message);
  return error as E;
}

const loopback = async (): Promise<string> => '127.0.0.1';

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('parseSftpUrl', () => {
  it.each([
    ['sftp://files.example.com/outbound/cards.csv', { hostname: 'files.example.com', port: 22, path: '/outbound/cards.csv' }],
    ['sftp://Files.Example.COM:2222/a.csv', { hostname: 'files.example.com', port: 2222, path: '/a.csv' }],
    ['sftp://[::1]:2022/a.csv', { hostname: '::1', port: 2022, path: '/a.csv' }],
    ['sftp://10.0.0.5/a%20b/c.csv', { hostname: '10.0.0.5', port: 22, path: '/a b/c.csv' }],
    ['sftp://host/~/out/c.csv', { hostname: 'host', port: 22, path: 'out/c.csv' }],
    ['sftp://host/a/../b.csv', { hostname: 'host', port: 22, path: '/b.csv' }],
  ])('parses %s', (url, expected) => {
    expect(parseSftpUrl(url)).toEqual(expected);
  });

  it.each([
    ['http://files.example.com/a.csv', 'url must use the sftp scheme'],
    ['files.example.com/a.csv', 'url is not a valid URL'],
    ['sftp://files.example.com', 'url must name a file to write'],
    ['sftp://files.example.com/', 'url must name a file to write'],
    ['sftp://files.example.com/~/', 'url must end in a file name, not a directory'],
    ['sftp://files.example.com/out/', 'url must end in a file name, not a directory'],
    ['sftp://user:url-password-xyz@files.example.com/a.csv', 'url must not contain a user name or password'],
    ['sftp://user@files.example.com/a.csv', 'url must not contain a user name or password'],
    ['sftp://files.example.com/a.csv?x=1', 'url must not contain a query or fragment'],
    ['sftp:///a.csv', 'url must name a host'],
    ['sftp://files.example.com:0/a.csv', 'url has an invalid port'],
    ['sftp://bad%20host/a.csv', 'url has an invalid host name'],
    ['sftp://host/a%2Fb.csv', 'url path has an invalid segment'],
    ['sftp://host/a%00.csv', 'url path has an invalid segment'],
    ['sftp://host//a.csv', 'url path has an empty segment'],
  ])('rejects %s', (url, message) => {
    expect(() => parseSftpUrl(url)).toThrow(InvalidSftpUrlError);
    try {
      parseSftpUrl(url);
    } catch (error) {
      expect((error as Error).message).toBe(message);
      messages.push((error as Error).message);
    }
  });
});

describe('host key pins', () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pin-test', '-f', path.join(dir, 'key')]);
  const line = fs.readFileSync(path.join(dir, 'key.pub'), 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', path.join(dir, 'key.pub')], { encoding: 'utf8' }).split(' ')[1];

  it('reads a key line and fingerprints it as ssh-keygen does', () => {
    const pin = parseHostKeyPin(line);
    expect(pin.kind).toBe('key');
    expect(pin.kind === 'key' && hostKeyFingerprint(pin.blob)).toBe(fingerprint);
    expect(parseHostKeyPin(fingerprint ?? '')).toEqual({ kind: 'fingerprint', sha256: fingerprint?.slice(7) });
  });

  it.each([
    ['a label that does not match the key', line.replace('ssh-ed25519', 'ssh-rsa')],
    ['an unsupported type', line.replace('ssh-ed25519', 'ssh-dss')],
    ['a truncated fingerprint', (fingerprint ?? '').slice(0, 20)],
    ['an MD5 fingerprint', 'MD5:16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48'],
  ])('refuses %s', (_name, pin) => {
    expect(() => parseHostKeyPin(pin)).toThrow(
      new SftpHostKeyError('host key pin must be an OpenSSH public key line (ssh-ed25519, ecdsa-sha2-*, ssh-rsa) or a SHA256:<base64> fingerprint', null),
    );
  });
});

describe('uploadFile without a server', () => {
  const base = { user: 'nobody', password: 'pw-never-sent', timeoutMs: 5000, resolveHost: loopback };
  secrets.push(base.password);

  it('refuses a bad URL, missing credentials, an unreadable key and a malformed pin before connecting', async () => {
    const url = 'sftp://127.0.0.1/a.csv';
    expect((await failure(uploadFile({ ...base, url: 'http://127.0.0.1/a.csv' }, Buffer.alloc(1)), InvalidSftpUrlError)).message).toBe('url must use the sftp scheme');
    expect((await failure(uploadFile({ ...base, url, password: undefined }, Buffer.alloc(1)), SftpAuthError)).message).toBe('no password or private key is configured');
    const { dir, cleanup } = tempDir();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'passphrase', '-f', path.join(dir, 'encrypted')]);
    const unreadable = {
      garbage: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-key-material\n-----END OPENSSH PRIVATE KEY-----\n',
      encrypted: fs.readFileSync(path.join(dir, 'encrypted'), 'utf8'),
      public: fs.readFileSync(path.join(dir, 'encrypted.pub'), 'utf8'),
    };
    cleanup();
    secrets.push('not-a-key-material', unreadable.encrypted.split('\n')[2] ?? 'unreachable');
    for (const privateKey of Object.values(unreadable)) {
      expect(isReadablePrivateKey(privateKey)).toBe(false);
      expect((await failure(uploadFile({ ...base, url, privateKey }, Buffer.alloc(1)), SftpAuthError)).message).toBe(
        'private key could not be read (expected an unencrypted OpenSSH or PEM private key)',
      );
    }
    const pinError = await failure(uploadFile({ ...base, url, hostKey: 'ssh-ed25519 nonsense' }, Buffer.alloc(1)), SftpHostKeyError);
    expect(pinError.presentedFingerprint).toBeNull();
  });

  it('reports a closed port at once, nothing written', async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await failure(uploadFile({ ...base, url: `sftp://127.0.0.1:${port}/a.csv` }, Buffer.from(PAN)), SftpTransferError);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.message).toBe(`SFTP upload to 127.0.0.1:${port} failed while connecting: connection error ECONNREFUSED`);
    expect([error.mayHaveWritten, error.finalFileMayExist, error.timedOut]).toEqual([false, false, false]);
  });

  it('gives up on a peer that never speaks SSH within the timeout', async () => {
    const sockets: net.Socket[] = [];
    let closed = 0;
    // Reads what the client sends (its SSH banner) and answers nothing.
    const silent = net.createServer((socket) => {
      sockets.push(socket);
      socket.resume().on('close', () => (closed += 1));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const error = await failure(uploadFile({ ...base, url: `sftp://127.0.0.1:${port}/a.csv`, timeoutMs: 400 }, Buffer.from(PAN)), SftpTransferError);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(1500);
      expect(error.message).toBe(`SFTP upload to 127.0.0.1:${port} failed while connecting: timed out after 400 ms`);
      expect([error.mayHaveWritten, error.timedOut]).toEqual([false, true]);
      expect(sockets).toHaveLength(1);
      // The client dropped the connection rather than leave it open.
      await expect.poll(() => closed, { timeout: 2000 }).toBe(1);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('counts a hanging resolveHost against the timeout', async () => {
    const error = await failure(
      uploadFile({ ...base, url: 'sftp://files.example.com/a.csv', timeoutMs: 200, resolveHost: () => new Promise(() => undefined) }, Buffer.from(PAN)),
      SftpTransferError,
    );
    expect(error.message).toBe('SFTP upload to files.example.com:22 failed while resolving the host: timed out after 200 ms');
    expect([error.mayHaveWritten, error.timedOut]).toEqual([false, true]);
  });
});

describeWithSshd('uploadFile against a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  /** A CSV with a card number in it, plus binary noise so any byte mangling shows. */
  const content = Buffer.concat([Buffer.from(`token,number\npm_1,${PAN}\n`), randomBytes(1024 * 1024 + 123)]);
  const target = (rel: string, extra: Partial<SftpTarget> = {}): SftpTarget => ({
    url: sshd.url(rel),
    user: sshd.user,
    privateKey: sshd.privateKey,
    timeoutMs: 10_000,
    resolveHost: loopback,
    ...extra,
  });
  const count = (pattern: RegExp) => sshd.logs().match(new RegExp(pattern, 'g'))?.length ?? 0;

  beforeAll(async () => {
    sshd = await startSshd();
    secrets.push(sshd.password, sshd.privateKey.split('\n')[2] ?? 'unreachable', sshd.pemPrivateKey.split('\n')[2] ?? 'unreachable');
  });
  afterAll(() => sshd?.stop());

  it('uploads with a private key: exact bytes, mode 0600, no temporary file left', async () => {
    const result = await uploadFile(target('export.csv', { hostKey: sshd.hostKeyLine }), content);
    expect(result).toMatchObject({ bytes: content.length, remotePath: 'export.csv', hostKeyFingerprint: sshd.hostKeyFingerprint });
    expect(result.latencyMs).toBeGreaterThan(0);
    expect(sshd.readFile('export.csv').equals(content)).toBe(true);
    expect(fs.statSync(path.join(sshd.root, 'export.csv')).mode & 0o777).toBe(0o600);
    expect(sshd.files()).toEqual(['export.csv']);
    expect(sshd.logs()).toMatch(new RegExp(`Accepted publickey for ${sshd.user} from 127\\.0\\.0\\.1`));
  });

  it('uploads with a PEM RSA key and with a password; an empty file too', async () => {
    expect([isReadablePrivateKey(sshd.privateKey), isReadablePrivateKey(sshd.pemPrivateKey)]).toEqual([true, true]);
    await uploadFile(target('pem.csv', { privateKey: sshd.pemPrivateKey }), Buffer.from('pem'));
    await uploadFile(target('password.csv', { password: sshd.password, privateKey: undefined }), Buffer.from('password'));
    await uploadFile(target('empty.csv'), Buffer.alloc(0));
    expect([sshd.readFile('pem.csv').toString(), sshd.readFile('password.csv').toString(), sshd.readFile('empty.csv').length]).toEqual(['pem', 'password', 0]);
    expect(sshd.logs()).toMatch(new RegExp(`Accepted password for ${sshd.user} from 127\\.0\\.0\\.1`));
  });

  it('writes into an existing nested directory, by absolute path too, and replaces an existing file', async () => {
    sshd.mkdir('outbound/daily');
    const nested = path.join(sshd.root, 'outbound', 'daily');
    await uploadFile(target('outbound/daily/cards.csv'), Buffer.from('first'));
    await uploadFile(target('', { url: `sftp://127.0.0.1:${sshd.port}${nested}/cards.csv` }), Buffer.from('second, longer'));
    expect(sshd.readFile('outbound/daily/cards.csv').toString()).toBe('second, longer');
    expect(sshd.files().filter((file) => file.startsWith('outbound/'))).toEqual(['outbound/', 'outbound/daily/', 'outbound/daily/cards.csv']);
  });

  it('fails cleanly on a missing directory or one it may not write: nothing written', async () => {
    const missing = await failure(uploadFile(target('no-such-dir/a.csv'), content), SftpTransferError);
    expect(missing.message).toBe(`SFTP upload to 127.0.0.1:${sshd.port} failed while creating the temporary file: server answered "no such file or directory"`);
    expect([missing.mayHaveWritten, missing.finalFileMayExist, missing.timedOut]).toEqual([false, false, false]);
    fs.mkdirSync(path.join(sshd.root, 'locked'), { mode: 0o755 }); // owned by root
    const denied = await failure(uploadFile(target('locked/a.csv'), content), SftpTransferError);
    expect(denied.message).toBe(`SFTP upload to 127.0.0.1:${sshd.port} failed while creating the temporary file: server answered "permission denied"`);
    expect(denied.mayHaveWritten).toBe(false);
    expect(fs.readdirSync(path.join(sshd.root, 'locked'))).toEqual([]);
  });

  it('removes its temporary file when the rename fails (a directory holds the final name)', async () => {
    fs.mkdirSync(path.join(sshd.root, 'taken.csv'));
    const error = await failure(uploadFile(target('taken.csv'), content), SftpTransferError);
    expect(error.message).toBe(`SFTP upload to 127.0.0.1:${sshd.port} failed while renaming into place: server answered "failure"`);
    expect([error.mayHaveWritten, error.finalFileMayExist, error.timedOut]).toEqual([false, false, false]);
    expect(sshd.files().filter((file) => file.includes('taken.csv'))).toEqual(['taken.csv/']);
  });

  it('refuses a wrong password or an unauthorized key with SftpAuthError', async () => {
    const before = sshd.files();
    secrets.push('wrong-password-123');
    const wrong = await failure(uploadFile(target('denied.csv', { password: 'wrong-password-123', privateKey: undefined }), content), SftpAuthError);
    expect(wrong.message).toBe(`login to 127.0.0.1:${sshd.port} as ${sshd.user} was refused`);
    const { dir, cleanup } = tempDir();
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'stranger')]);
      const stranger = fs.readFileSync(path.join(dir, 'stranger'), 'utf8');
      secrets.push(stranger.split('\n')[2] ?? 'unreachable');
      await failure(uploadFile(target('denied.csv', { privateKey: stranger }), content), SftpAuthError);
    } finally {
      cleanup();
    }
    expect(sshd.logs()).toMatch(new RegExp(`Failed password for ${sshd.user} from 127\\.0\\.0\\.1`));
    expect(sshd.files()).toEqual(before);
  });

  it('accepts a pinned key line (either host key) or its fingerprint', async () => {
    await uploadFile(target('pin-line.csv', { hostKey: sshd.hostKeyLine }), Buffer.from('a'));
    await uploadFile(target('pin-fingerprint.csv', { hostKey: sshd.hostKeyFingerprint }), Buffer.from('b'));
    // The ECDSA key is not the one negotiated by default: pinning its line restricts negotiation to it.
    const ecdsa = await uploadFile(target('pin-ecdsa.csv', { hostKey: sshd.ecdsaHostKeyLine }), Buffer.from('c'));
    const ecdsaPin = parseHostKeyPin(sshd.ecdsaHostKeyLine);
    expect(ecdsa.hostKeyFingerprint).toBe(ecdsaPin.kind === 'key' ? hostKeyFingerprint(ecdsaPin.blob) : '');
    expect(['pin-line.csv', 'pin-fingerprint.csv', 'pin-ecdsa.csv'].map((file) => sshd.readFile(file).toString())).toEqual(['a', 'b', 'c']);
    // A fingerprint cannot steer negotiation: the server shows its ed25519 key, so an ECDSA fingerprint fails.
    const ecdsaFingerprint = await failure(uploadFile(target('pin-ecdsa-fp.csv', { hostKey: ecdsa.hostKeyFingerprint }), Buffer.from('d')), SftpHostKeyError);
    expect(ecdsaFingerprint.presentedFingerprint).toBe(sshd.hostKeyFingerprint);
  });

  it('refuses a host whose key does not match the pin before logging in: nothing written', async () => {
    const { dir, cleanup } = tempDir();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'other')]);
    const otherLine = fs.readFileSync(path.join(dir, 'other.pub'), 'utf8').trim();
    cleanup();
    const otherPin = parseHostKeyPin(otherLine);
    const before = sshd.files();
    const logins = count(/Accepted (publickey|password) for/);
    for (const hostKey of [otherLine, otherPin.kind === 'key' ? hostKeyFingerprint(otherPin.blob) : '']) {
      const error = await failure(uploadFile(target('pinned.csv', { hostKey, password: sshd.password }), content), SftpHostKeyError);
      expect(error.message).toBe(`host key of 127.0.0.1:${sshd.port} does not match the pinned key (server presented ${sshd.hostKeyFingerprint})`);
      expect(error.presentedFingerprint).toBe(sshd.hostKeyFingerprint);
    }
    expect(sshd.files()).toEqual(before);
    expect(count(/Accepted (publickey|password) for/)).toBe(logins);
  });

  it('makes no connection when resolveHost refuses (the sshd log shows none)', async () => {
    const connections = count(/Connection from 127\.0\.0\.1/);
    const refuse = async (host: string): Promise<string> => {
      throw new Error(`${host} resolves to a private address`);
    };
    const refused = await failure(uploadFile(target('refused.csv', { resolveHost: refuse }), content), SftpRefusedError);
    expect(refused.message).toBe(`refused to connect to 127.0.0.1:${sshd.port}: 127.0.0.1 resolves to a private address`);
    const notAnAddress = await failure(uploadFile(target('refused.csv', { resolveHost: async () => 'localhost' }), content), SftpRefusedError);
    expect(notAnAddress.message).toBe(`refused to connect to 127.0.0.1:${sshd.port}: resolveHost did not return an IP address`);
    // Control: one real upload is logged, so the log would have shown the refused attempts too.
    await uploadFile(target('control.csv'), Buffer.from('control'));
    await expect.poll(() => count(/Connection from 127\.0\.0\.1/)).toBe(connections + 1);
    await sleep(100);
    expect(count(/Connection from 127\.0\.0\.1/)).toBe(connections + 1);
    expect(sshd.files()).not.toContain('refused.csv');
  });

  it('goes through the real egress guard: loopback refused unless the operator allows it', async () => {
    const connections = count(/Connection from 127\.0\.0\.1/);
    const strict = new EgressGuard([]);
    const refused = await failure(uploadFile(target('guarded.csv', { resolveHost: async (host) => (await strict.resolve(host)).address }), content), SftpRefusedError);
    expect(refused.message).toBe(`refused to connect to 127.0.0.1:${sshd.port}: Egress to 127.0.0.1 refused: loopback address.`);
    expect(refused.cause).toBeInstanceOf(EgressRefusedError);
    const allowing = new EgressGuard(['127.0.0.1/32']);
    await uploadFile(target('guarded.csv', { resolveHost: async (host) => (await allowing.resolve(host)).address }), Buffer.from('allowed'));
    expect(sshd.readFile('guarded.csv').toString()).toBe('allowed');
    await expect.poll(() => count(/Connection from 127\.0\.0\.1/)).toBe(connections + 1);
  });

  it('closes the connection after an upload', async () => {
    const disconnects = count(/Received disconnect from 127\.0\.0\.1/);
    await uploadFile(target('closed.csv'), Buffer.from('x'));
    await expect.poll(() => count(/Received disconnect from 127\.0\.0\.1/), { timeout: 3000 }).toBe(disconnects + 1);
  });

  it('stops at the hard timeout mid-upload and never leaves a partial file under the final name', async () => {
    const big = Buffer.concat([content, randomBytes(64 * 1024 * 1024)]);
    const started = Date.now();
    const error = await failure(uploadFile(target('slow.csv', { timeoutMs: 250 }), big), SftpTransferError);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(error.timedOut).toBe(true);
    expect(error.message).toMatch(new RegExp(`^SFTP upload to 127\\.0\\.0\\.1:${sshd.port} failed while \\w`));
    expect(sshd.files()).not.toContain('slow.csv');
    // If a temporary file remains, the error must have said bytes may have been written.
    await sleep(200);
    if (sshd.files().some((file) => file.startsWith('.slow.csv.'))) expect(error.mayHaveWritten).toBe(true);
  });
});

describe('error messages', () => {
  it('never carry a password, key, URL credential or file content', () => {
    expect(messages.length).toBeGreaterThanOrEqual(20);
    for (const message of messages) for (const secret of secrets) expect(message).not.toContain(secret);
  });
});
