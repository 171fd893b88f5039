/** Named locks held until the surrounding database transaction ends. */
export interface LocksRepository {
  /**
   * Serializes every transaction that takes the same named lock. PostgreSQL: a transaction-scoped
   * advisory lock. SQLite needs nothing: write transactions begin IMMEDIATE and so already run
   * one at a time.
   */
  serialize(name: string): Promise<void>;
}
