import type { TransactionRow } from '../store/repositories/transactions.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Transaction = TransactionRow;
