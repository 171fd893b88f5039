import type { Kysely } from 'kysely';

/**
 * Apple Pay and Google Pay (docs/wallets.md):
 *
 * - `wallet_token_uses`: one row per wallet token decrypted into a payment method, by the SHA-256 of
 *   what makes the token unique (Apple's `header.transactionId`, Google's signed message), so the
 *   same token decrypted twice is refused as a replay. Only the hash is kept; `used_at` says when.
 * - `environments.google_pay_merchant_id`: the merchant id from Google's console, the recipient
 *   `merchant:<id>` a Google Pay token must be signed for (`PUT /v1/environments/<key>`).
 */
export const wallets = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('wallet_token_uses')
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('wallet_token_uses_pk', ['environment_key', 'digest'])
      .execute();
    await db.schema.alterTable('environments').addColumn('google_pay_merchant_id', 'text').execute();
  },
};
