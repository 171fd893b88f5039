import type { ImportKey, PaymentMethodImport } from '../../domain/payment-method-import.js';

/** Single-query primitives over import jobs and import keys (docs/portability.md). Records no events. */
export interface PaymentMethodImportsRepository {
  insert(job: PaymentMethodImport): Promise<void>;
  /** Writes the job's state, format, report and error as they are now. */
  save(job: PaymentMethodImport): Promise<void>;
  find(environmentKey: string, token: string): Promise<PaymentMethodImport | undefined>;
  /** The environment's jobs, newest first. */
  list(environmentKey: string, limit: number): Promise<PaymentMethodImport[]>;
  findKey(environmentKey: string): Promise<ImportKey | undefined>;
  /** Stores the key pair unless the environment has one already (two first uses at once keep one); the one kept. */
  insertKey(key: ImportKey): Promise<ImportKey>;
}
