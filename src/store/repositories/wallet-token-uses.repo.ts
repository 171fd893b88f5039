import type { Kysely } from 'kysely';
import type { WalletTokenUsesRepository } from '../interfaces/wallet-token-uses.js';
import type { Database } from '../schema.js';

/** Single-query primitives over `wallet_token_uses` (migration 026, docs/wallets.md "Replays"). */
export class WalletTokenUsesRepo implements WalletTokenUsesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async claim(environmentKey: string, digest: string, usedAt: string): Promise<boolean> {
    const result = await this.db
      .insertInto('wallet_token_uses')
      .values({ environment_key: environmentKey, digest, used_at: usedAt })
      .onConflict((conflict) => conflict.columns(['environment_key', 'digest']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }
}
