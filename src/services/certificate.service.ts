import type { parseCertificateChain as ParseChain } from '../certificates/certificate-chain.js';
import type { generateCertificateRequest as GenerateRequest } from '../certificates/certificate-request.js';
import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { CertificateInputError } from '../certificates/input-error.js';
import { parsePrivateKey } from '../certificates/private-key.js';
import { publicKeyHash, publicKeyPem, samePublicKey } from '../certificates/public-key.js';
import type { CertificateSubject } from '../certificates/subject.js';
import type { Clock } from '../domain/clock.js';
import { AppError, type ErrorEntry } from '../domain/errors.js';
import { Secret } from '../domain/secret.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import type { Certificate, CertificateAlgorithm, CertificateLevel } from '../domain/certificate.js';
import type { EventType } from '../domain/event-types.js';
import type { Environment } from '../domain/environment.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'certificates' | 'journal';

export { CERTIFICATE_LEVELS, type CertificateLevel } from '../domain/certificate.js';

/** `POST certificates`: a signed certificate (the leaf, then its chain) and its private key. */
export interface CertificateUpload {
  pem: string;
  privateKey: Secret;
  level: CertificateLevel;
}

/** `POST certificates/generate`: the key algorithm and the subject of the request. */
export interface CertificateRequestInput {
  algorithm: CertificateAlgorithm;
  subject: CertificateSubject;
  level: CertificateLevel;
}

/** What a receiver needs for mutual TLS: the signed certificate (chain included) and its key, in PEM. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

export const CERTIFICATE_MESSAGES = {
  notFound: 'Unable to find the specified certificate.',
  keyMismatch: 'The private key does not match the certificate.',
  notSigned: 'Certificate token names a certificate that has no signed pem yet: PUT the signed certificate first.',
  redacted: "Unable to use a certificate because it's been redacted.",
} as const;

/**
 * The X.509 helpers (@peculiar/x509 and its ASN.1 libraries), loaded with the first certificate
 * uploaded, generated or attached rather than with every process: what a process loads stays in
 * its heap (docs/benchmarks.md, "Import").
 */
async function x509Helpers(): Promise<{ parseCertificateChain: typeof ParseChain; generateCertificateRequest: typeof GenerateRequest }> {
  const [chain, request] = await Promise.all([import('../certificates/certificate-chain.js'), import('../certificates/certificate-request.js')]);
  return { parseCertificateChain: chain.parseCertificateChain, generateCertificateRequest: request.generateCertificateRequest };
}

/**
 * Certificates: upload a signed certificate with its key, or generate a key pair and a CSR and
 * attach the signed certificate later. Private keys are sealed with the environment's data key,
 * bound to the certificate's token, and leave the service only through `clientCertificate`.
 */
export class CertificateService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async list(environment: Environment, query: ListQuery): Promise<Certificate[]> {
    const page = await pageAfter(query, (token) => this.repos.certificates.positionOf(environment.key, token));
    return this.repos.certificates.list(environment.key, page);
  }

  /** The certificate in this environment, or 404 (another environment's token included). */
  async show(environment: Environment, token: string): Promise<Certificate> {
    const row = await this.repos.certificates.find(environment.key, token);
    if (row === undefined) throw new AppError({ key: 'errors.certificate_not_found', message: CERTIFICATE_MESSAGES.notFound });
    return row;
  }

  /** Stores an uploaded certificate once both parts parse and the key is the certificate's. */
  async upload(environment: Environment, input: CertificateUpload, request: RequestMeta = NO_REQUEST): Promise<Certificate> {
    const { parseCertificateChain } = await x509Helpers();
    const errors: ErrorEntry[] = [];
    const chain = collect(errors, () => parseCertificateChain(input.pem));
    const key = collect(errors, () => parsePrivateKey(input.privateKey));
    // Either part missing means `errors` has its reason (both, when both are wrong).
    if (chain === undefined || key === undefined) throw new AppError(errors);
    if (!samePublicKey(key.key, chain.spkiDer)) throw keyMismatch();
    // The certificate's own encoding of its key: the bytes a relying party (Apple Pay) hashes.
    return this.insert(environment, {
      level: input.level,
      algorithm: null,
      subject: chain.subject,
      spkiDer: chain.spkiDer,
      csr: null,
      pem: chain.pem,
      privateKeyPem: key.pkcs8Pem,
    }, request);
  }

  /** Makes a key pair and a CSR signed by it; `pem` stays null until the signed certificate is PUT. */
  async generate(environment: Environment, input: CertificateRequestInput, request: RequestMeta = NO_REQUEST): Promise<Certificate> {
    const { generateCertificateRequest } = await x509Helpers();
    const generated = await generateCertificateRequest(input.algorithm, input.subject);
    return this.insert(environment, {
      level: input.level,
      algorithm: generated.algorithm,
      subject: input.subject,
      spkiDer: generated.spkiDer,
      csr: generated.csrPem,
      pem: null,
      privateKeyPem: generated.privateKeyPem,
    }, request);
  }

  /**
   * Attaches the signed certificate (the leaf, optionally followed by its chain). Its key must
   * be the stored one; a renewal for the same key replaces the previous certificate. The subject
   * fields keep what was asked for (a CA may rewrite the subject; the pem shows what it wrote).
   */
  async attachSigned(environment: Environment, token: string, pem: string, request: RequestMeta = NO_REQUEST): Promise<Certificate> {
    const row = await this.show(environment, token);
    if (row.redactedAt !== null) throw certificateRedacted();
    const { parseCertificateChain } = await x509Helpers();
    const errors: ErrorEntry[] = [];
    const chain = collect(errors, () => parseCertificateChain(pem));
    if (chain === undefined) throw new AppError(errors);
    if (!samePublicKey(chain.spkiDer, row.publicKey)) throw keyMismatch();
    const attached = await this.store.unitOfWork(async (repos) => {
      const at = this.now();
      const changed = await repos.certificates.attachPem(environment.key, token, chain.pem, at);
      if (changed) await recordChange(repos, environment, 'UpdateCertificate', token, at);
      return changed;
    }, { environment, request });
    if (!attached) throw new AppError({ key: 'errors.certificate_not_found', message: CERTIFICATE_MESSAGES.notFound });
    return this.show(environment, token);
  }

  /**
   * The signed certificate (chain included) and its private key in PEM, for a receiver's mutual
   * TLS. 404 for an unknown token; 422 on `certificate_token` while there is no signed pem.
   * The key is opened last and handed over at once: never store, log or render it.
   */
  async clientCertificate(environment: Environment, token: string): Promise<ClientCertificate> {
    const row = await this.show(environment, token);
    if (row.redactedAt !== null) throw certificateRedacted();
    if (row.pem === null) {
      throw new AppError({ key: 'errors.invalid', attribute: 'certificate_token', message: CERTIFICATE_MESSAGES.notSigned });
    }
    const key = await this.openPrivateKey(row);
    return { cert: row.pem, key: key.reveal() };
  }

  /**
   * A certificate's key pair, to check a merchant's signature with (enhanced iFrame security);
   * undefined for a token the environment does not have. The private key never leaves the caller.
   */
  async signingKeys(environment: Environment, token: string): Promise<{ privateKeyPem: Secret; publicKeyPem: string } | undefined> {
    const row = await this.repos.certificates.find(environment.key, token);
    if (row === undefined || row.redactedAt !== null) return undefined;
    return { privateKeyPem: await this.openPrivateKey(row), publicKeyPem: row.publicKey };
  }

  /**
   * Erases the certificate's private key, signed pem and CSR for good. The row stays (redacted)
   * so a receiver or a signed tokenization still naming it fails with a clear error; redacting
   * twice is a 422 like the other redacts.
   */
  async redact(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<Certificate> {
    const row = await this.show(environment, token);
    if (row.redactedAt !== null) throw certificateRedacted();
    const redacted = await this.store.unitOfWork(async (repos) => {
      const at = this.now();
      const changed = await repos.certificates.redact(environment.key, token, at);
      if (changed) await recordChange(repos, environment, 'RedactCertificate', token, at);
      return changed;
    }, { environment, request });
    if (!redacted) throw certificateRedacted();
    return this.show(environment, token);
  }

  private async openPrivateKey(row: Certificate): Promise<Secret> {
    const opened = await this.keyring.openFor(row.environmentKey, row.sealedPrivateKey, certificatePrivateKeyAad(row.token));
    const key = new Secret(opened.toString('utf8'));
    opened.fill(0);
    return key;
  }

  private async insert(
    environment: Environment,
    fields: {
      level: CertificateLevel;
      algorithm: CertificateAlgorithm | null;
      subject: CertificateSubject;
      spkiDer: Buffer;
      csr: string | null;
      pem: string | null;
      privateKeyPem: Secret;
    },
    request: RequestMeta = NO_REQUEST,
  ): Promise<Certificate> {
    const token = randomToken(TOKEN_LENGTH.item);
    const now = this.now();
    const plaintext = Buffer.from(fields.privateKeyPem.reveal(), 'utf8');
    let sealed: string;
    try {
      sealed = await this.keyring.sealFor(environment.key, plaintext, certificatePrivateKeyAad(token));
    } finally {
      plaintext.fill(0);
    }
    const { email_address: emailAddress, ...subject } = fields.subject;
    await this.store.unitOfWork(async (repos) => {
      await repos.certificates.insert({
        token,
        environmentKey: environment.key,
        level: fields.level,
        algorithm: fields.algorithm,
        ...subject,
        emailAddress,
        publicKey: publicKeyPem(fields.spkiDer),
        publicKeyHash: publicKeyHash(fields.spkiDer),
        csr: fields.csr,
        pem: fields.pem,
        sealedPrivateKey: sealed,
        createdAt: now,
        updatedAt: now,
      });
      await recordChange(repos, environment, 'AddCertificate', token, now);
    }, { environment, request });
    return this.show(environment, token);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

/** Records a change of a certificate in its unit of work (docs/events.md). */
function recordChange(repos: Pick<Repositories, 'journal'>, environment: Environment, eventType: EventType, token: string, at: string): Promise<void> {
  return repos.journal.record({ environmentKey: environment.key, eventType, objectType: 'certificate', objectKey: token, at });
}

/** Associated data binding a sealed private key to its certificate (key rotation needs it too). */
export function certificatePrivateKeyAad(certificateToken: string): string {
  return `certificate:${certificateToken}:private_key`;
}

function certificateRedacted(): AppError {
  return new AppError({ key: 'errors.certificate_redacted', message: CERTIFICATE_MESSAGES.redacted });
}

function keyMismatch(): AppError {
  return new AppError({ key: 'errors.certificate_key_mismatch', message: CERTIFICATE_MESSAGES.keyMismatch });
}

/** Runs a parse; a refusal becomes a field error in `errors` (each part of an upload reports its own). */
function collect<T>(errors: ErrorEntry[], parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof CertificateInputError)) throw error;
    errors.push({ key: 'errors.invalid', attribute: error.attribute, message: error.message });
    return undefined;
  }
}
