import type { ExportTransition, PaymentMethodExport } from '../../domain/payment-method-export.js';

/** Single-query primitives over export requests (docs/portability.md, "Exporting"). Records no events. */
export interface PaymentMethodExportsRepository {
  insert(job: PaymentMethodExport): Promise<void>;
  find(environmentKey: string, token: string): Promise<PaymentMethodExport | undefined>;
  /** The environment's exports, newest first. */
  list(environmentKey: string, limit: number): Promise<PaymentMethodExport[]>;
  /**
   * Moves an export from `transition.from` to `transition.to` in one conditional write (so two
   * approvals or two downloads racing cannot both happen); the export as it is now, or undefined
   * when it was not in `from` (or, with `unexpiredAt`, had expired).
   */
  transition(environmentKey: string, token: string, transition: ExportTransition): Promise<PaymentMethodExport | undefined>;
}
