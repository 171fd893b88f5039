import { AppError, MESSAGES } from '../domain/errors.js';
import type { CardAccessFilter, StoredCardAccessRecord } from '../domain/card-access.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'cardAccess' | 'paymentMethods';

/** A payment method's access log: who opened its card data, for what (docs/audit.md). */
export class CardAccessService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(store: StoreAccess<Uses>) {
    this.repos = store.repos;
  }

  /** Newest first; 404 `errors.payment_method_not_found` when the environment has no such method. */
  async accessLog(environmentKey: string, paymentMethodToken: string, filter: CardAccessFilter): Promise<StoredCardAccessRecord[]> {
    const method = await this.repos.paymentMethods.find(environmentKey, paymentMethodToken);
    if (method === undefined) throw new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodNotFound });
    return this.repos.cardAccess.list(environmentKey, paymentMethodToken, filter);
  }
}
