/** The two SQL dialects Coffer runs on. */
export type Dialect = 'sqlite' | 'postgres';
