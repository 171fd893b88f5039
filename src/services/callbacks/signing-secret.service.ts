import type { Clock } from '../../domain/clock.js';
import { randomToken } from '../../domain/tokens.js';
import type { StoreHandle } from '../../store/database.js';
import { repositories, type Repositories } from '../../store/repositories.js';
import type { Keyring } from '../../vault/keyring.js';

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
    store: StoreHandle,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** A new secret replaces the old one at once (recorded as RegenerateSigningSecret); returns it, once. */
  async regenerate(environmentKey: string): Promise<string> {
    const secret = randomToken(SECRET_LENGTH);
    const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(secret, 'utf8'), aad(environmentKey));
    await this.repos.environments.setSigningSecret(environmentKey, sealed, this.clock.now().toISOString());
    return secret;
  }

  /**
   * The secret to sign with. An environment that never regenerated one gets one now (callbacks
   * are always signed); the merchant obtains a secret they can see by regenerating it.
   */
  async secretFor(environmentKey: string): Promise<string> {
    let row = await this.repos.environments.find(environmentKey);
    if (row !== undefined && row.sealed_signing_secret === null) {
      const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(randomToken(SECRET_LENGTH), 'utf8'), aad(environmentKey));
      await this.repos.environments.setSigningSecretIfAbsent(environmentKey, sealed);
      row = await this.repos.environments.find(environmentKey);
    }
    if (row === undefined || row.sealed_signing_secret === null) throw new Error('environment without a signing secret');
    return (await this.keyring.openFor(environmentKey, row.sealed_signing_secret, aad(environmentKey))).toString('utf8');
  }
}
