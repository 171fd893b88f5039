import type { UsedNoncesRepository } from '../interfaces/used-nonces.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Single-query primitives over `used_nonces`: a nonce is spent at most once per environment. */
export class UsedNoncesRepo implements UsedNoncesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Spends a nonce; false when it was already spent (a replay). Atomic on both dialects. */
  async claim(environmentKey: string, nonce: string, expiresAt: string): Promise<boolean> {
    const result = await this.db
      .insertInto('used_nonces')
      .values({ environment_key: environmentKey, nonce, expires_at: expiresAt })
      .onConflict((conflict) => conflict.columns(['environment_key', 'nonce']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Gives a nonce back (the tokenization it was claimed for wrote nothing). */
  async release(environmentKey: string, nonce: string): Promise<void> {
    await this.db.deleteFrom('used_nonces').where('environment_key', '=', environmentKey).where('nonce', '=', nonce).execute();
  }

  /** Forgets nonces whose timestamp window has passed: a replay of them is refused as stale anyway. */
  async purgeExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('used_nonces').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
