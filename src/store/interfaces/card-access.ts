import type { CardAccessFilter, CardAccessRecord, StoredCardAccessRecord } from '../../domain/card-access.js';

/** Single-query primitives over `card_access_records` (append only; docs/audit.md). */
export interface CardAccessRepository {
  /** One statement whose result nobody reads: on PostgreSQL it goes out with what follows it. */
  record(record: CardAccessRecord): Promise<void>;
  /** A payment method's access log, newest first (a cursor is the record's `seq`). */
  list(environmentKey: string, paymentMethodToken: string, filter: CardAccessFilter): Promise<StoredCardAccessRecord[]>;
}
