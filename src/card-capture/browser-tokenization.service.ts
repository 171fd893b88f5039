import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { AppError, MESSAGES, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { originAllowed } from '../domain/origins.js';
import type { PaymentMethodCreateInput } from '../domain/payment-method.js';
import type { CertificateService } from '../services/certificate.service.js';
import type { PaymentMethodService, VaultOutcome } from '../services/payment-method.service.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { DefinitionCache } from '../cache/definition-cache.js';
import { freshTimestamp, isCanonicalTimestamp, signatureMatches, signedText, SIGNATURE_MAX_AGE_SECONDS, type SignedRequest } from './signature.js';
import type { Environment } from '../domain/environment.js';
import type { PullThroughService } from '../services/upstream/pull-through.service.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'environments' | 'organizations' | 'usedNonces';

/** Where a public tokenization came from, as far as the browser tells. */
export type RequestOrigin =
  /** Coffer's own card frame (a same-origin request), embedded by `parentOrigin`. */
  | { kind: 'frame'; parentOrigin: string | null }
  /** A merchant's page calling across origins (CORS), or posting a form. */
  | { kind: 'page'; origin: string | null }
  /** No Origin header: not a browser (a server, curl). */
  | { kind: 'none' };

const MAX_NONCE_LENGTH = 255;

function refused(entry: ErrorEntry): AppError {
  return new AppError(entry);
}

/**
 * Tokenization without an access secret (docs/card-capture.md): the card form's frames, merchants' pages
 * calling across origins, and the transparent redirect. The environment key is public, so the
 * guards are the environment's allowed origins, the API.md §7 limits (applied by the route) and,
 * when the environment asks for it, the merchant's signature over a nonce that is spent once.
 */
export class BrowserTokenizationService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly paymentMethods: PaymentMethodService,
    private readonly certificates: CertificateService,
    private readonly clock: Clock,
    private readonly cache: DefinitionCache,
    /**
     * Live migration (docs/portability.md, "Pull-through"): a recache naming a token this
     * environment does not hold pulls it from the upstream first. Here and not in the API's
     * pull-through hook, because a public request must pass its origin and signature checks
     * before it may make Coffer call the upstream.
     */
    private readonly pullThrough: Pick<PullThroughService, 'ensure'> | null = null,
  ) {
    this.repos = store.repos;
  }

  /** The environment a public request names; 401 (the usual message) for an unknown key. */
  async environment(key: string | undefined): Promise<Environment> {
    const environment = key === undefined || key === '' ? undefined : await this.findEnvironment(key);
    if (environment === undefined) throw refused({ key: 'errors.access_denied', message: MESSAGES.accessDenied });
    return environment;
  }

  /**
   * The environment of a frame page, or undefined: pages answer their own refusals. From the
   * node's cache unless an environment changed since (docs/caching.md).
   */
  async findEnvironment(key: string): Promise<Environment | undefined> {
    const generation = await this.cache.generations.begin();
    return this.cache.environments.read(generation, key, () => this.repos.environments.find(key));
  }

  allowedOrigins(environment: Environment): string[] {
    return environment.allowedOrigins ?? [];
  }

  /** 403 `errors.origin_not_allowed` when the environment lists origins and this is not one. */
  checkOrigin(environment: Environment, origin: RequestOrigin): void {
    if (origin.kind === 'none') return;
    const claimed = origin.kind === 'frame' ? origin.parentOrigin : origin.origin;
    if (!originAllowed(this.allowedOrigins(environment), claimed)) {
      throw refused({ key: 'errors.origin_not_allowed', message: MESSAGES.originNotAllowed });
    }
  }

  /**
   * Vaults the card as a `cached` payment method. With enhanced security the signature is
   * checked and its nonce spent first; a refused card gives the nonce back, so the shopper can
   * correct a typo with the same signed page.
   */
  async tokenize(environment: Environment, origin: RequestOrigin, signed: Partial<SignedRequest>, input: PaymentMethodCreateInput, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome> {
    const nonce = await this.admit(environment, origin, signed);
    try {
      return await this.paymentMethods.create(environment, { ...input, retained: false }, request);
    } catch (error) {
      if (nonce !== null) await this.repos.usedNonces.release(environment.key, nonce);
      throw error;
    }
  }

  /**
   * The card form's CVV recache (`Spreedly.recache()`, docs/card-capture.md): a new CVV for a
   * vaulted card, held for one caching window, behind the same checks as a tokenization. A token
   * this environment does not hold is pulled from its upstream first, as the API's routes do.
   */
  async recache(environment: Environment, origin: RequestOrigin, signed: Partial<SignedRequest>, token: string, verificationValue: string | undefined, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome & { succeeded: boolean }> {
    const nonce = await this.admit(environment, origin, signed);
    try {
      await this.pullThrough?.ensure(environment, token);
      return await this.paymentMethods.recache(environment, token, verificationValue, request);
    } catch (error) {
      if (nonce !== null) await this.repos.usedNonces.release(environment.key, nonce);
      throw error;
    }
  }

  /**
   * The checks of every public request that vaults something: the origin, an active
   * organization and, with enhanced security, the signature, whose nonce is spent (returned, so
   * a refused card can give it back); null without enhanced security.
   */
  private async admit(environment: Environment, origin: RequestOrigin, signed: Partial<SignedRequest>): Promise<string | null> {
    this.checkOrigin(environment, origin);
    const generation = await this.cache.generations.generationFor(environment);
    const token = environment.organizationToken;
    const organization = await this.cache.organizations.read(generation, token, () => this.repos.organizations.find(token));
    if (organization === undefined || !organization.active) {
      throw refused({ key: 'errors.account_inactive', message: MESSAGES.organizationInactive });
    }
    return environment.enhancedIframeSecurity ? this.verifySignature(environment, signed) : null;
  }

  /** Checks the merchant's signature and spends its nonce; returns the nonce. */
  private async verifySignature(environment: Environment, signed: Partial<SignedRequest>): Promise<string> {
    const invalid = () => refused({ key: 'errors.invalid_signature', message: MESSAGES.invalidSignature });
    const { nonce, timestamp, certificateToken, signature } = signed;
    if (nonce === undefined || timestamp === undefined || certificateToken === undefined || signature === undefined) throw invalid();
    if (nonce === '' || nonce.length > MAX_NONCE_LENGTH) throw invalid();
    if (!isCanonicalTimestamp(timestamp)) throw refused({ key: 'errors.invalid_signature', message: MESSAGES.malformedTimestamp });
    const now = this.clock.now();
    const seconds = freshTimestamp(timestamp, now);
    if (seconds === null) throw refused({ key: 'errors.invalid_signature', message: MESSAGES.staleTimestamp });
    const keys = await this.certificates.signingKeys(environment, certificateToken);
    if (keys === undefined) throw invalid();
    const matches = signatureMatches(signedText({ nonce, timestamp, certificateToken }), signature, {
      privateKeyPem: keys.privateKeyPem.reveal(),
      publicKeyPem: keys.publicKeyPem,
    });
    if (!matches) throw invalid();
    // Nonces outlive their timestamp's window only as long as a replay could still be fresh.
    await this.repos.usedNonces.purgeExpired(now.toISOString());
    const expiresAt = new Date((seconds + SIGNATURE_MAX_AGE_SECONDS + 60) * 1000).toISOString();
    if (!(await this.repos.usedNonces.claim(environment.key, nonce, expiresAt))) {
      throw refused({ key: 'errors.nonce_already_used', message: MESSAGES.nonceAlreadyUsed });
    }
    return nonce;
  }
}
