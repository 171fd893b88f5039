import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withSeq } from './columns.js';

/** The genesis of the chain: the "previous hash" of its first entry (docs/audit.md, "Chain format"). */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The tamper-evident audit trail (docs/audit.md) and the PCI 8 people policies (docs/compliance.md):
 *
 * - `card_access_records`: one row per opening of a payment method's sensitive values (PAN, CVV, bank
 *   account): by whom (an access secret, a portal user, Coffer itself), for what (purchase,
 *   delivery, export) and which object (the transaction), with the request id.
 * - `chain_position`, `chain_prev_hash`, `chain_hash` on it and on `audit_events`: both tables form
 *   one hash chain, in the order of `chain_position`; null until the chainer links the row (a
 *   partial index finds those).
 * - `audit_chain_head`: the one row every append of the chain updates (it serialises appenders).
 * - `audit_checkpoints`: signed heads of the chain (Ed25519); an `anchor` one is where the chain
 *   starts again after retention pruned what came before.
 * - `audit_signing_keys`: the signing key pairs, the private key sealed under the master key.
 * - `organizations.require_two_step`: the organization's two-step setting (null: on when it has a
 *   production environment); `portal_memberships.last_active_at`: the member's last sign-in.
 */
export function auditChain(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('card_access_records'), dialect)
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('payment_method_token', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('object_type', 'text', (c) => c.notNull())
        .addColumn('object_id', 'text')
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('chain_position', 'bigint')
        .addColumn('chain_prev_hash', 'text')
        .addColumn('chain_hash', 'text')
        .execute();
      await db.schema.createIndex('card_access_by_method').on('card_access_records').columns(['environment_key', 'payment_method_token', 'seq']).execute();

      await db.schema.alterTable('audit_events').addColumn('chain_position', 'bigint').execute();
      await db.schema.alterTable('audit_events').addColumn('chain_prev_hash', 'text').execute();
      await db.schema.alterTable('audit_events').addColumn('chain_hash', 'text').execute();

      for (const table of ['card_access_records', 'audit_events']) {
        await db.schema.createIndex(`${table}_chain_position`).on(table).column('chain_position').unique().execute();
        // Only the rows the chainer has still to link: a few at any time, whatever the table's size.
        await db.schema.createIndex(`${table}_unchained`).on(table).column('seq').where(sql.ref('chain_position'), 'is', null).execute();
      }

      await db.schema
        .createTable('audit_chain_head')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('position', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await sql`insert into audit_chain_head (id, position, hash, updated_at) values (1, 0, ${GENESIS_HASH}, ${new Date().toISOString()})`.execute(db);

      await db.schema
        .createTable('audit_checkpoints')
        .addColumn('position', 'bigint', (c) => c.primaryKey())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('signed_at', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('anchor', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable('audit_signing_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('sealed_private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema.alterTable('organizations').addColumn('require_two_step', 'integer').execute();
      await db.schema.alterTable('portal_memberships').addColumn('last_active_at', 'text').execute();
    },
  };
}
