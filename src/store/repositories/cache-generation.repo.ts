import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Reads the store's cache generation (migration 015): one primary-key read of a one-row table,
 * compiled once so each request pays only for executing it.
 */
export class CacheGenerationRepo {
  private readonly query: CompiledQuery<{ generation: number }>;

  constructor(private readonly db: Kysely<Database>) {
    this.query = db.selectFrom('cache_generation').select('generation').where('id', '=', 1).compile();
  }

  async read(): Promise<number> {
    const { rows } = await this.db.executeQuery(this.query);
    const row = rows[0];
    if (row === undefined) throw new Error('cache_generation has no row: the store was not migrated');
    return Number(row.generation);
  }
}
