import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The portal's card search (docs/portal.md, "Find a card"): every search key is an index, so a
 * search reads the entries that match and never a row it then throws away, and never opens a
 * sealed value. Last four, first six, the cardholder's name and the email are expressions over
 * columns the vault already writes (the non-sensitive `details` JSON, `email`), indexed as
 * expressions: every writer (the API, imports, the bench's bulk seeder) is covered without a
 * column to keep in step. The repository compares exactly these expressions
 * (`PAYMENT_METHOD_SEARCH_KEYS`), which is how both planners match them to their index.
 *
 * Each index ends in `seq`, so a search lists newest first by walking its index backwards.
 */
export interface SearchKeys {
  /** A card's last four digits, or a bank account's display digits. */
  lastFour: string;
  firstSix: string;
  /** The email, lower-cased (compared case-insensitively). */
  email: string;
  /** "first last", lower-cased and trimmed; compared by prefix (a range of the index). */
  name: string;
}

export const PAYMENT_METHOD_SEARCH_KEYS: Record<Dialect, SearchKeys> = {
  sqlite: {
    lastFour: "coalesce(json_extract(details, '$.last_four_digits'), json_extract(details, '$.account_number_display_digits'))",
    firstSix: "json_extract(details, '$.first_six_digits')",
    email: 'lower(email)',
    name: "lower(trim(coalesce(json_extract(details, '$.first_name'), '') || ' ' || coalesce(json_extract(details, '$.last_name'), '')))",
  },
  postgres: {
    lastFour: "coalesce((details::jsonb ->> 'last_four_digits'), (details::jsonb ->> 'account_number_display_digits'))",
    firstSix: "(details::jsonb ->> 'first_six_digits')",
    email: 'lower(email)',
    // Byte order ("C"), so a prefix is exactly a range of the index whatever the database's collation.
    name: "(lower(btrim(coalesce(details::jsonb ->> 'first_name', '') || ' ' || coalesce(details::jsonb ->> 'last_name', ''))) collate \"C\")",
  },
};

/** Indexes over plain columns: the fingerprint (every card of one number), the state and the creation time. */
const COLUMN_INDEXES: ReadonlyArray<{ name: string; columns: string; where?: string }> = [
  { name: 'payment_methods_by_fingerprint', columns: 'environment_key, fingerprint, seq', where: 'fingerprint is not null' },
  { name: 'payment_methods_by_state', columns: 'environment_key, storage_state, seq' },
  { name: 'payment_methods_by_created', columns: 'environment_key, created_at, seq' },
];

export function portalSearch(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const keys = PAYMENT_METHOD_SEARCH_KEYS[dialect];
      const expressions: Array<[string, string]> = [
        ['payment_methods_by_last_four', keys.lastFour],
        ['payment_methods_by_first_six', keys.firstSix],
        ['payment_methods_by_email', keys.email],
        ['payment_methods_by_name', keys.name],
      ];
      for (const [name, expression] of expressions) {
        await sql`create index ${sql.id(name)} on payment_methods (environment_key, (${sql.raw(expression)}), seq)`.execute(db);
      }
      for (const index of COLUMN_INDEXES) {
        await sql`create index ${sql.id(index.name)} on payment_methods (${sql.raw(index.columns)})${sql.raw(index.where === undefined ? '' : ` where ${index.where}`)}`.execute(db);
      }
    },
  };
}
