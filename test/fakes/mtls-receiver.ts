// @peculiar/x509 reads its ASN.1 schemas through decorator metadata: the polyfill comes first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const KEY_ALG = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN_ALG = { name: 'ECDSA', hash: 'SHA-256' } as const;
const HOUR = 60 * 60 * 1000;

/** A PEM certificate and its PKCS#8 private key. */
export interface Pem {
  cert: string;
  key: string;
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function pkcs8(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A throw-away certificate authority that issues server and client certificates for tests. */
export class TestCa {
  private constructor(
    private readonly keys: webcrypto.CryptoKeyPair,
    private readonly certificate: x509.X509Certificate,
  ) {}

  static async create(name = 'Coffer Test Receiver CA'): Promise<TestCa> {
    const keys = (await webcrypto.subtle.generateKey(KEY_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${name}`,
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + 24 * HOUR),
      signingAlgorithm: SIGN_ALG,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return new TestCa(keys, certificate);
  }

  get pem(): string {
    return this.certificate.toString('pem');
  }

  /** A server certificate for DNS names and IP addresses. */
  issueServer(dnsNames: string[], ips: string[]): Promise<Pem> {
    const names = [...dnsNames.map((value) => ({ type: 'dns' as const, value })), ...ips.map((value) => ({ type: 'ip' as const, value }))];
    return this.issue(`CN=${dnsNames[0] ?? ips[0] ?? 'server'}`, [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
    ]);
  }

  /** A client certificate (mTLS) with this common name. */
  issueClient(commonName: string): Promise<Pem> {
    return this.issue(`CN=${commonName}`, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
  }

  private async issue(subject: string, extensions: x509.Extension[]): Promise<Pem> {
    const keys = (await webcrypto.subtle.generateKey(KEY_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: this.certificate.subject,
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + 24 * HOUR),
      signingAlgorithm: SIGN_ALG,
      publicKey: keys.publicKey,
      signingKey: this.keys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        ...extensions,
        await x509.AuthorityKeyIdentifierExtension.create(this.certificate.publicKey),
      ],
    });
    return { cert: certificate.toString('pem'), key: await pkcs8(keys.privateKey) };
  }
}

/** A request the HTTPS receiver accepted, with what TLS told it about the client. */
export interface MtlsRecord {
  method: string;
  target: string;
  body: string;
  /** The SNI name the client sent. */
  servername: string | false | null;
  /** CN of the client certificate, or null when none was presented. */
  clientCommonName: string | null;
}

/**
 * A receiver behind HTTPS on 127.0.0.1 (node:https) with a certificate from `ca`. With
 * `requireClientCert` it asks for a client certificate and refuses the TLS session without one
 * signed by `ca` (`requestCert: true, rejectUnauthorized: true`). Answers 200 "accepted".
 */
export class MtlsReceiver {
  readonly received: MtlsRecord[] = [];
  /** TLS sessions the server refused (`tlsClientError`). */
  refusedHandshakes = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: https.Server,
    readonly port: number,
  ) {}

  static async start(options: { ca: TestCa; dnsNames: string[]; requireClientCert: boolean }): Promise<MtlsReceiver> {
    const serverPem = await options.ca.issueServer(options.dnsNames, ['127.0.0.1']);
    const server = https.createServer({
      key: serverPem.key,
      cert: serverPem.cert,
      ca: options.ca.pem,
      requestCert: options.requireClientCert,
      rejectUnauthorized: options.requireClientCert,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const receiver = new MtlsReceiver(server, (server.address() as AddressInfo).port);
    server.on('connection', (socket: Socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('tlsClientError', () => {
      receiver.refusedHandshakes += 1;
    });
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const socket = request.socket as TLSSocket;
        const peer = socket.getPeerCertificate();
        const commonName = peer !== null && typeof peer === 'object' && 'subject' in peer && peer.subject !== undefined ? String(peer.subject.CN) : null;
        receiver.received.push({ method: request.method ?? '', target: request.url ?? '', body: Buffer.concat(chunks).toString('utf8'), servername: socket.servername, clientCommonName: commonName });
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end('accepted');
      });
    });
    return receiver;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
