import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import type { Clock } from '../../domain/clock.js';
import { randomToken } from '../../domain/tokens.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import type { Keyring } from '../../vault/keyring.js';
import { hasCallbackSubscription, type Environment } from '../../domain/environment.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'environments' | 'journal';

/** Length of a signing secret: 64 base-62 characters (~380 bits), like Spreedly's. */
const SECRET_LENGTH = 64;

function aad(environmentKey: string): string {
  return `environments:${environmentKey}:signing_secret`;
}

/**
 * The per-environment secret callbacks are signed with (docs/events.md). Sealed at rest with the
 * environment's data key; shown only in the answer that regenerates it. Never an access secret.
 */
export class SigningSecretService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  /** A new secret replaces the old one at once (recorded as RegenerateSigningSecret); returns it, once. */
  async regenerate(environment: Environment, request: RequestMeta = NO_REQUEST): Promise<string> {
    const environmentKey = environment.key;
    const secret = randomToken(SECRET_LENGTH);
    const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(secret, 'utf8'), aad(environmentKey));
    const at = this.clock.now().toISOString();
    await this.store.unitOfWork(async (repos) => {
      // The event names the environment only: the secret is never in it (docs/events.md).
      if (await repos.environments.setSigningSecret(environmentKey, sealed, at)) {
        await repos.journal.record({ environmentKey, eventType: 'RegenerateSigningSecret', objectType: 'environment', objectKey: environmentKey, at, environmentSubscribed: hasCallbackSubscription(environment) });
      }
    }, { environment, request });
    return secret;
  }

  /**
   * The secret to sign with. An environment that never regenerated one gets one now (callbacks
   * are always signed); the merchant obtains a secret they can see by regenerating it.
   */
  async secretFor(environmentKey: string): Promise<string> {
    let environment = await this.repos.environments.find(environmentKey);
    if (environment !== undefined && environment.sealedSigningSecret === null) {
      const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(randomToken(SECRET_LENGTH), 'utf8'), aad(environmentKey));
      await this.repos.environments.setSigningSecretIfAbsent(environmentKey, sealed);
      environment = await this.repos.environments.find(environmentKey);
    }
    if (environment === undefined || environment.sealedSigningSecret === null) throw new Error('environment without a signing secret');
    return (await this.keyring.openFor(environmentKey, environment.sealedSigningSecret, aad(environmentKey))).toString('utf8');
  }
}
