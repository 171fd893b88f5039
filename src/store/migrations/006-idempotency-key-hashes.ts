import type { Kysely } from 'kysely';

/**
 * Idempotency keys are stored as keyed hashes from now on: a key in clear (a card number, say)
 * would otherwise sit in the database and its WAL (docs/security.md, "Idempotency and secrets"). Rows written before
 * hold the keys in clear and could never be matched again (a hash is looked up): they are
 * deleted. Replays of requests made before the upgrade are lost; nothing else is.
 */
export function idempotencyKeyHashes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await (db as Kysely<{ idempotency_keys: { idempotency_key: string } }>).deleteFrom('idempotency_keys').execute();
    },
  };
}
