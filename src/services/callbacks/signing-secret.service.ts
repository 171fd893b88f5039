import type { Clock } from '../../domain/clock.js';
import { randomToken } from '../../domain/tokens.js';
import type { StoreHandle } from '../../store/database.js';
import { inTransaction, repositories, type Repositories } from '../../store/repositories.js';
import type { Keyring } from '../../vault/keyring.js';
import { hasCallbackSubscription, type Environment } from '../../domain/environment.js';

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
  private readonly repos: Repositories;

  constructor(
    private readonly store: StoreHandle,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** A new secret replaces the old one at once (recorded as RegenerateSigningSecret); returns it, once. */
  async regenerate(environment: Environment): Promise<string> {
    const environmentKey = environment.key;
    const secret = randomToken(SECRET_LENGTH);
    const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(secret, 'utf8'), aad(environmentKey));
    const at = this.clock.now().toISOString();
    await inTransaction(this.store, async (repos) => {
      // The event names the environment only: the secret is never in it (docs/events.md).
      if (await repos.environments.setSigningSecret(environmentKey, sealed, at)) {
        await repos.journal.record({ environmentKey, eventType: 'RegenerateSigningSecret', objectType: 'environment', objectKey: environmentKey, at, environmentSubscribed: hasCallbackSubscription(environment) });
      }
    });
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
