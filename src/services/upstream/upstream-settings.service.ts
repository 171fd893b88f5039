import { AppError, fieldError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import { Secret } from '../../domain/secret.js';
import type { Upstream, UpstreamFailure } from '../../domain/upstream.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Keyring } from '../../vault/keyring.js';
import type { UpstreamClient } from './upstream-client.js';
import { UpstreamThrottledError, UpstreamUnavailableError, type UpstreamEndpoint } from './upstream-http.js';

/** `environment.upstream{…}` of PUT environments/<key>, as received (strings or absent). */
export interface UpstreamInput {
  url?: string | undefined;
  environmentKey?: string | undefined;
  accessSecret?: string | undefined;
  publicUrl?: string | undefined;
  /** An existing receiver at the upstream that delivers to this Coffer (else one is created on first pull). */
  receiverToken?: string | undefined;
}

/** What GET environments/<key>/upstream shows: settings without the secret, and progress. */
export interface UpstreamStatus {
  upstream: Upstream;
  failures: UpstreamFailure[];
  failedCount: number;
}

const SHOWN_FAILURES = 50;

export const UPSTREAM_NOT_FOUND = (): AppError => new AppError({ key: 'errors.upstream_not_found', message: 'This environment has no upstream.' });

/** The sealed secret's associated data: the blob opens only as this environment's upstream secret. */
export function upstreamSecretAad(environmentKey: string): string {
  return `environment_upstreams:${environmentKey}:access_secret`;
}

/** Maps a failed upstream call to the API's answer: 502 (or 503 with Retry-After when throttled). */
export function upstreamAppError(error: unknown): AppError {
  if (error instanceof UpstreamThrottledError) {
    const seconds = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
    return new AppError({ key: 'errors.upstream_unavailable', message: error.message }, { 'Retry-After': seconds }, 503);
  }
  if (error instanceof UpstreamUnavailableError) return new AppError({ key: 'errors.upstream_unavailable', message: error.message });
  throw error;
}

/**
 * An environment's upstream: set, shown, cleared (docs/portability.md, "Live migration"). The
 * access secret is sealed under the environment's data key before it is stored and is never
 * shown again; setting one first checks that the upstream answers to it, so a typo is refused
 * at once and nothing is kept.
 */
export class UpstreamSettingsService {
  constructor(
    private readonly store: StoreAccess<'upstreams' | 'journal'>,
    private readonly keyring: Keyring,
    private readonly client: UpstreamClient,
    private readonly clock: Clock,
    /** Tells this node's pull-through that the environment's upstream changed. */
    private readonly changed: (environmentKey: string) => void,
  ) {}

  async set(environmentKey: string, input: UpstreamInput): Promise<Upstream> {
    const current = await this.store.repos.upstreams.find(environmentKey);
    const errors: ErrorEntry[] = [];
    const url = baseUrl(input.url, 'url', errors);
    const publicUrl = baseUrl(input.publicUrl, 'public_url', errors, true);
    const upstreamKey = required(input.environmentKey, 'environment_key', errors);
    // The secret may be left out when one is kept already (changing only the public URL, say).
    const secret = input.accessSecret === undefined || input.accessSecret === '' ? null : input.accessSecret;
    if (secret === null && current === undefined) errors.push(fieldError.blank('access_secret'));
    if (secret !== null && secret.length > 255) errors.push(fieldError.tooLong('access_secret', 255));
    const receiverToken = input.receiverToken === undefined || input.receiverToken === '' ? null : input.receiverToken;
    if (receiverToken !== null && !/^[A-Za-z0-9_-]{1,64}$/.test(receiverToken)) errors.push(fieldError.invalid('receiver_token'));
    if (errors.length > 0) throw new AppError(errors);
    const accessSecret = new Secret(secret ?? (await this.openSecret(current as Upstream)).reveal());
    const endpoint: UpstreamEndpoint = { url: url as string, environmentKey: upstreamKey as string, accessSecret };
    await this.verify(endpoint);
    const sealed = secret === null ? (current as Upstream).sealedAccessSecret : await this.keyring.sealFor(environmentKey, Buffer.from(secret, 'utf8'), upstreamSecretAad(environmentKey));
    // A receiver made for another public URL or upstream would deliver elsewhere: it is kept only when neither changed.
    const sameTarget = current !== undefined && current.url === url && current.upstreamEnvironmentKey === upstreamKey && current.publicUrl === publicUrl;
    const at = this.clock.now().toISOString();
    await this.store.unitOfWork(async (repos) => {
      await repos.upstreams.put(
        { environmentKey, url: url as string, upstreamEnvironmentKey: upstreamKey as string, sealedAccessSecret: sealed, publicUrl: publicUrl as string, receiverToken: receiverToken ?? (sameTarget ? current.receiverToken : null) },
        at,
      );
      await repos.journal.record({ environmentKey, eventType: 'UpdateEnvironment', objectType: 'environment', objectKey: environmentKey, at });
    });
    this.changed(environmentKey);
    return this.show(environmentKey);
  }

  async show(environmentKey: string): Promise<Upstream> {
    const upstream = await this.store.repos.upstreams.find(environmentKey);
    if (upstream === undefined) throw UPSTREAM_NOT_FOUND();
    return upstream;
  }

  async status(environmentKey: string): Promise<UpstreamStatus> {
    const upstream = await this.show(environmentKey);
    const [failures, failedCount] = await Promise.all([this.store.repos.upstreams.failures(environmentKey, SHOWN_FAILURES), this.store.repos.upstreams.countFailures(environmentKey)]);
    return { upstream, failures, failedCount };
  }

  async clear(environmentKey: string): Promise<void> {
    const at = this.clock.now().toISOString();
    const removed = await this.store.unitOfWork(async (repos) => {
      const gone = await repos.upstreams.remove(environmentKey);
      if (gone) await repos.journal.record({ environmentKey, eventType: 'UpdateEnvironment', objectType: 'environment', objectKey: environmentKey, at });
      return gone;
    });
    this.changed(environmentKey);
    if (!removed) throw UPSTREAM_NOT_FOUND();
  }

  /** The endpoint to call, its secret opened (in a `Secret`). */
  async endpoint(upstream: Upstream): Promise<UpstreamEndpoint> {
    return { url: upstream.url, environmentKey: upstream.upstreamEnvironmentKey, accessSecret: await this.openSecret(upstream) };
  }

  private async openSecret(upstream: Upstream): Promise<Secret> {
    return new Secret((await this.keyring.openFor(upstream.environmentKey, upstream.sealedAccessSecret, upstreamSecretAad(upstream.environmentKey))).toString('utf8'));
  }

  /** One small list call: the upstream must answer, and to these credentials. */
  private async verify(endpoint: UpstreamEndpoint): Promise<void> {
    try {
      await this.client.listRetained(endpoint, null, 1);
    } catch (error) {
      if (error instanceof UpstreamUnavailableError && /HTTP 40[13]/.test(error.detail)) {
        throw new AppError({ key: 'errors.invalid', attribute: 'access_secret', message: 'The upstream refused this environment key and access secret.' });
      }
      throw upstreamAppError(error);
    }
  }
}

function required(value: string | undefined, attribute: string, errors: ErrorEntry[]): string | null {
  if (value === undefined || value === '') {
    errors.push(fieldError.blank(attribute));
    return null;
  }
  if (value.length > 255) {
    errors.push(fieldError.tooLong(attribute, 255));
    return null;
  }
  return value;
}

/**
 * An absolute http(s) URL without credentials, query or fragment. The upstream keeps only its
 * origin (Spreedly's API lives at the root); the public URL keeps a path prefix (a proxy's).
 */
function baseUrl(value: string | undefined, attribute: string, errors: ErrorEntry[], keepPath = false): string | null {
  const text = required(value, attribute, errors);
  if (text === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    errors.push(fieldError.invalid(attribute));
    return null;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') {
    errors.push(fieldError.invalid(attribute));
    return null;
  }
  return keepPath ? `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}` : parsed.origin;
}
