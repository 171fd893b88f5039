import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withSeq } from './columns.js';

/** Receivers (HTTP delivery, SFTP export), certificates (client certificates, CSRs), in-flight index. */
export function receiversAndCertificates(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('receivers'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull().references('environments.key'))
        .addColumn('receiver_type', 'text', (c) => c.notNull())
        .addColumn('hostnames', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('company_name', 'text')
        .addColumn('sub_merchant_key', 'text')
        .addColumn('credentials', 'text')
        .addColumn('sealed_credentials', 'text')
        .addColumn('protocol_user', 'text')
        .addColumn('sealed_protocol', 'text')
        .addColumn('host_key', 'text')
        .addColumn('certificate_token', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('receivers_by_environment').on('receivers').columns(['environment_key', 'seq']).execute();

      await withSeq(db.schema.createTable('certificates'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull().references('environments.key'))
        .addColumn('level', 'text', (c) => c.notNull())
        .addColumn('algorithm', 'text')
        .addColumn('cn', 'text')
        .addColumn('o', 'text')
        .addColumn('ou', 'text')
        .addColumn('c', 'text')
        .addColumn('st', 'text')
        .addColumn('l', 'text')
        .addColumn('email_address', 'text')
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('public_key_hash', 'text', (c) => c.notNull())
        .addColumn('csr', 'text')
        .addColumn('pem', 'text')
        .addColumn('sealed_private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('certificates_by_environment').on('certificates').columns(['environment_key', 'seq']).execute();

      await db.schema.alterTable('transactions').addColumn('receiver_token', 'text').execute();
      // The sweep looks for work left in flight (abandoned gateway calls, interrupted exports):
      // a partial index keeps that a lookup among a handful of rows, not a scan of every transaction.
      await db.schema
        .createIndex('transactions_in_flight')
        .on('transactions')
        .columns(['state', 'updated_at'])
        .where(sql.ref('state'), 'in', ['processing', 'pending'])
        .execute();
    },
  };
}
