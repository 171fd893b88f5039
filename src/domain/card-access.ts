/**
 * Who opened a payment method's sensitive values (PAN, CVV, bank account), for what and when
 * (PCI DSS 10.2.1.1; docs/audit.md, "Card access records"). Never the values themselves.
 */
export type CardAccessActorType = 'access_secret' | 'user' | 'system';

/** What the values were opened for: a gateway operation, a receiver delivery, an export. */
export type CardAccessOperation =
  | 'purchase'
  | 'authorize'
  | 'verify'
  | 'store'
  | 'general_credit'
  | 'capture'
  | 'void'
  | 'credit'
  | 'complete'
  | 'deliver'
  | 'export';

export interface CardAccessRecord {
  environmentKey: string;
  paymentMethodToken: string;
  operation: CardAccessOperation;
  /** The record the opening served: 'transaction' (gateway or receiver). */
  objectType: string;
  objectId: string | null;
  actorType: CardAccessActorType;
  /** The access secret's key, the portal user's email, or 'coffer'. */
  actor: string;
  /** The API request that caused it (X-Request-Id); null for background work. */
  requestId: string | null;
  createdAt: string;
}

/** A stored record, with its place in the per-method log (newest first). */
export interface StoredCardAccessRecord extends CardAccessRecord {
  cursor: number;
}

/** Keyset paging of a method's access log, newest first. */
export interface CardAccessFilter {
  before?: number;
  count: number;
}

/** Who a request acted as: its access secret, or Coffer itself for work no authenticated request caused. */
export function cardAccessActor(request: { readonly auth?: { readonly secret: { readonly key: string } } | null }): Pick<CardAccessRecord, 'actorType' | 'actor'> {
  const key = request.auth?.secret.key;
  return key === undefined ? { actorType: 'system', actor: 'coffer' } : { actorType: 'access_secret', actor: key };
}
