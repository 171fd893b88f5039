import type { Generated } from 'kysely';

/*
 * Column conventions, the same on SQLite and PostgreSQL so one query layer serves both:
 * - timestamps are ISO-8601 UTC text with milliseconds (sortable as text);
 * - booleans are integers 0/1;
 * - free-form structures are JSON text;
 * - `seq` is a database-assigned, strictly increasing integer: lists page on it, so
 *   "oldest first" is exact even for records created in the same millisecond.
 */

export interface OrganizationsTable {
  token: string;
  name: string;
  active: number;
  created_at: string;
  updated_at: string;
  /** Migration 022: 1 or 0 as the organization set it; null: required when it has a production environment. */
  require_two_step: number | null;
}

export interface EnvironmentsTable {
  seq: Generated<number>;
  key: string;
  organization_token: string;
  name: string;
  production: number;
  created_at: string;
  updated_at: string;
  /** JSON array of origins allowed to embed the card form and tokenize from a browser; null = any. */
  allowed_origins: string | null;
  /** 1: browser tokenization needs the merchant's signature (nonce, timestamp, certificate token). */
  enhanced_iframe_security: Generated<number>;
  /** The callbacks' signing secret, sealed with the environment's data key. */
  sealed_signing_secret: Generated<string | null>;
  /** Where the environment's subscribed events are POSTed; null = nowhere. */
  callback_url: Generated<string | null>;
  /** The callbacks' format: xml (default) or json. */
  callback_format: Generated<string | null>;
  /** JSON array of the event types sent to `callback_url`; null = every type. */
  callback_event_types: Generated<string | null>;
  /** Migration 026: the merchant id from Google's console (Google Pay's recipient); null = none. */
  google_pay_merchant_id: Generated<string | null>;
}

export interface AccessSecretsTable {
  seq: Generated<number>;
  key: string;
  organization_token: string;
  name: string;
  role: string;
  /** JSON array of environment keys, or null for every environment of the organization. */
  environment_keys: string | null;
  /** HMAC-SHA-256 (hex) of the secret under the secret-hash key; the secret itself is never stored. */
  secret_hash: string;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
  /** Last authenticated use, to the minute (migration 009). */
  last_used_at: string | null;
}

export interface WrappedKeysTable {
  id: string;
  /** 'secret_hash' (global), 'data' or 'fingerprint' (per environment). */
  purpose: string;
  environment_key: string | null;
  /** The key sealed under the master key (a cipher blob, see vault/cipher.ts). */
  wrapped: string;
  master_key_id: string;
  created_at: string;
}

export interface GatewaysTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  gateway_type: string;
  description: string | null;
  merchant_profile_key: string | null;
  sub_merchant_key: string | null;
  sandbox: number;
  state: string;
  /** Credentials the gateway type declares safe, as a JSON object (echoed in views). */
  safe_credentials: string | null;
  /** The other credentials, a JSON object sealed with the environment's data key. */
  sealed_credentials: string | null;
  /** JSON object of Coffer-side settings (e.g. timeout_seconds). */
  settings: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransactionsTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  transaction_type: string;
  state: string;
  succeeded: number;
  message_key: string | null;
  message: string | null;
  gateway_token: string | null;
  payment_method_token: string | null;
  reference_token: string | null;
  amount: number | null;
  currency_code: string | null;
  /** JSON object of type-specific fields (a snapshot of the subject for Redact*, etc.). */
  details: string | null;
  /** The scrubbed exchange with the gateway, for GET transactions/<t>/transcript. */
  transcript: string | null;
  /** The receiver of a DeliverPaymentMethod / ExportPaymentMethods / RedactReceiver transaction. */
  receiver_token: string | null;
  /** `details.order_id`, copied by the repository on insert so the portal can search it (migration 009). */
  order_id: string | null;
  created_at: string;
  updated_at: string;
  /** Where the outcome of an asynchronous finish is POSTed, and in which format. */
  callback_url: Generated<string | null>;
  callback_format: Generated<string | null>;
  /** Next time the sweep asks the gateway about an unknown result; null = not to ask. */
  reconcile_next_at: Generated<string | null>;
  reconcile_attempts: Generated<number>;
  reconciled_at: Generated<string | null>;
  /** The first attempt of the retry chain this transaction belongs to (itself for the first); null outside a chain. */
  first_attempt_token: Generated<string | null>;
  /** The workflow decision that chose this transaction's gateway (JSON); null when not routed. */
  routed_by: Generated<string | null>;
}

export interface IdempotencyKeysTable {
  environment_key: string;
  idempotency_key: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  request_hash: string;
  /** running or done. */
  state: string;
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface PaymentMethodsTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  /** credit_card, bank_account or third_party_token. */
  payment_method_type: string;
  /** cached, retained, redacted, used or closed. */
  storage_state: string;
  test: number;
  single_use: number;
  email: string | null;
  /** Free-form JSON (object or string), returned as sent. */
  data: string | null;
  /** Flat JSON object of at most 25 keys. */
  metadata: string | null;
  callback_url: string | null;
  /** JSON object of the type's non-sensitive fields (names, address, masks, card type, expiry, …). */
  details: string;
  /** PAN sealed with the environment's data key; null once redacted. */
  sealed_number: string | null;
  /** HMAC of the PAN under the environment's fingerprint key (hex); null once redacted. */
  fingerprint: string | null;
  sealed_cvv: string | null;
  cvv_length: number | null;
  /** When a held CVV must be dropped. */
  cvv_expires_at: string | null;
  sealed_routing_number: string | null;
  sealed_account_number: string | null;
  /** For cached methods: when the sweep redacts them. */
  cache_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReceiversTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  /** test, http, sftp, or a named receiver of the operator's catalog. */
  receiver_type: string;
  /** Comma-separated scheme+host[:port] list that delivery and export URLs must match. */
  hostnames: string;
  /** retained or redacted. */
  state: string;
  company_name: string | null;
  sub_merchant_key: string | null;
  /** JSON array of {name, safe, value?}: the order as sent; values only for safe credentials. */
  credentials: string | null;
  /** JSON object name → value of the unsafe credentials, sealed with the environment's data key. */
  sealed_credentials: string | null;
  /** SFTP login user (not secret). */
  protocol_user: string | null;
  /** JSON {password?, private_key?} sealed with the environment's data key. */
  sealed_protocol: string | null;
  /** SFTP host key to pin (OpenSSH public key line or SHA256: fingerprint). */
  host_key: string | null;
  /** A certificate of the same environment presented as the TLS client certificate (mTLS). */
  certificate_token: string | null;
  created_at: string;
  updated_at: string;
}

export interface CertificatesTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  /** environment or organization. */
  level: string;
  /** ec-prime256v1 or rsa-2048 for generated keys; null for uploads. */
  algorithm: string | null;
  cn: string | null;
  o: string | null;
  ou: string | null;
  c: string | null;
  st: string | null;
  l: string | null;
  email_address: string | null;
  /** SPKI PEM. */
  public_key: string;
  /** base64 SHA-256 of the DER SubjectPublicKeyInfo. */
  public_key_hash: string;
  csr: string | null;
  /** The signed certificate (PEM, possibly with its chain), once known. */
  pem: string | null;
  /** PKCS#8 PEM sealed with the environment's data key; never returned. '' once redacted. */
  sealed_private_key: string;
  /** When the certificate was redacted (migration 012): key and pem erased, unusable. */
  redacted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Nonces spent by signed browser tokenizations (enhanced iFrame security). */
export interface UsedNoncesTable {
  environment_key: string;
  nonce: string;
  expires_at: string;
}

/** Migration 026: wallet tokens already decrypted, by the SHA-256 of their unique part (replays). */
export interface WalletTokenUsesTable {
  environment_key: string;
  digest: string;
  used_at: string;
}

/** Migration 027: one run of a master key rotation or move (installation-wide, docs/key-custody.md). */
export interface MasterKeyRotationsTable {
  id: string;
  kind: string;
  to_provider: string;
  to_master_key_id: string;
  /** JSON list of master key ids. */
  from_master_key_ids: string;
  rewrapped: number;
  remaining: number;
  outcome: string;
  problem: string | null;
  started_at: string;
  finished_at: string;
}

/** Migration 019: an import job (docs/portability.md); `report` is JSON text. */
export interface PaymentMethodImportsTable {
  token: string;
  environment_key: string;
  state: string;
  format: string | null;
  encrypted: number;
  report: string;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 019: an environment's OpenPGP import key pair (the private half sealed). */
export interface ImportKeysTable {
  environment_key: string;
  public_key: string;
  sealed_private_key: string;
  fingerprint: string;
  created_at: string;
}

/** Migration 023: an export request (docs/portability.md, "Exporting"); `filter` and `recipient_user_ids` are JSON text. */
export interface PaymentMethodExportsTable {
  token: string;
  environment_key: string;
  state: string;
  filter: string;
  recipient_public_key: string;
  recipient_fingerprint: string;
  recipient_user_ids: string;
  requester_type: string;
  requester: string;
  approver_type: string | null;
  approver: string | null;
  downloader_type: string | null;
  downloader: string | null;
  payment_methods: number | null;
  error: string | null;
  expires_at: string;
  created_at: string;
  approved_at: string | null;
  downloaded_at: string | null;
  updated_at: string;
  /** Migration 030: who cancelled or rejected a pending export, and when. */
  closer_type: string | null;
  closer: string | null;
  closed_at: string | null;
}

/** The Kysely database type: every table Coffer keeps. */
export interface Database {
  organizations: OrganizationsTable;
  environments: EnvironmentsTable;
  access_secrets: AccessSecretsTable;
  wrapped_keys: WrappedKeysTable;
  master_key_checks: MasterKeyChecksTable;
  gateways: GatewaysTable;
  transactions: TransactionsTable;
  payment_methods: PaymentMethodsTable;
  idempotency_keys: IdempotencyKeysTable;
  receivers: ReceiversTable;
  certificates: CertificatesTable;
  portal_people: PortalPeopleTable;
  portal_memberships: PortalMembershipsTable;
  portal_invitations: PortalInvitationsTable;
  used_nonces: UsedNoncesTable;
  portal_sessions: PortalSessionsTable;
  audit_events: AuditEventsTable;
  overview_rollups: OverviewRollupsTable;
  overview_rollup_marks: OverviewRollupMarksTable;
  events: EventsTable;
  callback_deliveries: CallbackDeliveriesTable;
  callback_attempts: CallbackAttemptsTable;
  callback_destinations: CallbackDestinationsTable;
  cache_generation: CacheGenerationTable;
  workflows: WorkflowsTable;
  environment_upstreams: EnvironmentUpstreamsTable;
  upstream_failures: UpstreamFailuresTable;
  upstream_intake_grants: UpstreamIntakeGrantsTable;
  payment_method_imports: PaymentMethodImportsTable;
  import_keys: ImportKeysTable;
  card_access_records: CardAccessRecordsTable;
  audit_chain_head: AuditChainHeadTable;
  audit_checkpoints: AuditCheckpointsTable;
  audit_signing_keys: AuditSigningKeysTable;
  wallet_token_uses: WalletTokenUsesTable;
  payment_method_exports: PaymentMethodExportsTable;
  master_key_rotations: MasterKeyRotationsTable;
}

/** The chain columns of an audited row (migration 022, docs/audit.md): null until the chainer links it. */
export interface ChainColumns {
  chain_position: number | null;
  chain_prev_hash: string | null;
  chain_hash: string | null;
}

/** Migration 022: one opening of a payment method's sensitive values. */
export interface CardAccessRecordsTable extends ChainColumns {
  seq: Generated<number>;
  environment_key: string;
  payment_method_token: string;
  operation: string;
  object_type: string;
  object_id: string | null;
  actor_type: string;
  actor: string;
  request_id: string | null;
  created_at: string;
}

/** Migration 022: the single row every chain append updates. */
export interface AuditChainHeadTable {
  id: number;
  position: number;
  hash: string;
  updated_at: string;
}

/** Migration 022: a signed head of the chain; `anchor` 1 where retention restarted it. */
export interface AuditCheckpointsTable {
  position: number;
  hash: string;
  signed_at: string;
  key_id: string;
  signature: string;
  anchor: number;
}

/** Migration 022: an Ed25519 key pair signing checkpoints, its private key sealed under the master key. */
export interface AuditSigningKeysTable {
  id: string;
  public_key: string;
  sealed_private_key: string;
  created_at: string;
}

/** Migration 015 (docs/caching.md): one row, bumped by trigger on every write to a cached table. */
export interface CacheGenerationTable {
  id: number;
  generation: number;
}

/**
 * A person who signs in to the merchant portal (migration 017): one per email, whatever the
 * number of organizations. The credentials (password, second factor) and the lockout are the
 * person's; what they may do is their membership's.
 */
export interface PortalPeopleTable {
  seq: Generated<number>;
  token: string;
  /** Lower case. */
  email: string;
  /** argon2id PHC string. */
  password_hash: string;
  /** The TOTP secret in use, sealed (vault/portal-secret-box.ts); null when two-step is off. */
  totp_secret: string | null;
  /** A new TOTP secret being set up, sealed; it replaces `totp_secret` once a code of it is typed. */
  totp_pending_secret: string | null;
  totp_enabled: number;
  /** The RFC 6238 time step of the last code accepted: a code is accepted only for a newer step. */
  totp_last_step: number | null;
  /** Failed sign-ins (password or code) since the last success, unlock or lock. */
  failed_sign_ins: Generated<number>;
  /** Sign-in is refused until then (ISO-8601), whatever the password. */
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

/** A person's place in one organization: the role, and whether it is disabled (migration 017). */
export interface PortalMembershipsTable {
  seq: Generated<number>;
  token: string;
  person_token: string;
  organization_token: string;
  /** owner | admin | developer | viewer */
  role: string;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 022: the member's last sign-in into this organization (null: none since). */
  last_active_at: string | null;
}

/**
 * An invitation to join an organization (migration 017). Whoever holds its link joins as the
 * invited email: with that person's password when they have one, else choosing it.
 */
export interface PortalInvitationsTable {
  seq: Generated<number>;
  token: string;
  organization_token: string;
  /** Lower case. */
  email: string;
  role: string;
  /** SHA-256 (hex) of the secret in the link; the secret itself is shown once and never stored. */
  secret_hash: string;
  /** The email of who invited. */
  invited_by: string;
  created_at: string;
  expires_at: string;
}

/**
 * A portal session (migration 017): one person in one organization at a time. The cookie holds a
 * random value whose SHA-256 is `id_hash`.
 */
export interface PortalSessionsTable {
  id_hash: string;
  person_token: string;
  /** The organization the session acts in; switching changes it (and the CSRF token). */
  organization_token: string;
  csrf_token: string;
  /** 'password' (second factor pending) or 'active'. */
  stage: string;
  /** The environment the user is looking at. */
  environment_key: string | null;
  address: string;
  /** The one-time value of the last secret-creating form this session submitted. */
  consumed_nonce: string | null;
  created_at: string;
  last_seen_at: string;
  /** Absolute expiry. */
  expires_at: string;
}

/** Who changed what, when, from where (portal actions, API secret management). */
export interface AuditEventsTable {
  seq: Generated<number>;
  token: string;
  organization_token: string;
  /** 'user' (portal), 'access_secret' (API) or 'operator' (CLI). */
  actor_type: string;
  /** The user's email, the secret's key, or 'cli'. */
  actor: string;
  action: string;
  object_type: string;
  object_id: string | null;
  environment_key: string | null;
  address: string | null;
  /** JSON object of non-secret facts (a new name, a role). */
  details: string | null;
  created_at: string;
  /** Migration 022 (docs/audit.md). */
  chain_position: number | null;
  chain_prev_hash: string | null;
  chain_hash: string | null;
}

/** The overview's hourly counts (migration 025, src/domain/rollup.ts); `hour` is `YYYY-MM-DDTHH`. */
export interface OverviewRollupsTable {
  environment_key: string;
  hour: string;
  figure: string;
  gateway_token: string;
  /** A decline code, a latency bucket, `<workflow key>\n<rule>`; '' for figures without one. */
  label: string;
  count: number;
}

/** How far the overview's rollups of an environment are complete (an hour boundary, ISO text). */
export interface OverviewRollupMarksTable {
  environment_key: string;
  complete_until: string;
}

/** One change of an API object (docs/events.md). */
export interface EventsTable {
  seq: Generated<number>;
  token: string;
  environment_key: string | null;
  request_id: string | null;
  event_type: string;
  object_type: string;
  object_key: string;
  created_at: string;
}

/** One callback to deliver (the queue). */
export interface CallbackDeliveriesTable {
  seq: Generated<number>;
  token: string;
  environment_key: string;
  event_token: string;
  /** event (the environment's subscription) or transaction (the transaction's own callback_url). */
  kind: string;
  url: string;
  format: string;
  /** queued, delivered or abandoned. */
  state: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** A node holds the row until then (SQLite's claim); null when nobody does. */
  claimed_until: string | null;
  /** Who claimed the row for its current attempt; the attempt's result is written only by them. */
  claim_id: string | null;
  give_up_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 018: the key its destination's failures are counted under (the URL's first 200 characters). */
  destination: string | null;
}

/** Migration 018: a destination of an environment whose last attempt failed (docs/events.md, "Delivery"). */
export interface CallbackDestinationsTable {
  environment_key: string;
  destination: string;
  /** Consecutive failed attempts; the row is deleted by the next delivered one. */
  failures: number;
  /** Past the threshold: nothing is sent to it before then. */
  blocked_until: string | null;
  updated_at: string;
}

/** The delivery log, one row per attempt. */
export interface CallbackAttemptsTable {
  seq: Generated<number>;
  delivery_token: string;
  attempt: number;
  status: number | null;
  latency_ms: number;
  error: string | null;
  created_at: string;
}

/** A routing workflow of an environment (migration 014, docs/routing.md). */
export interface WorkflowsTable {
  seq: Generated<number>;
  environment_key: string;
  key: string;
  name: string;
  /** JSON array of rules `{name, condition, target}`, evaluated in order. */
  rules: string;
  /** JSON target used when no rule matches. */
  default_target: string;
  /** JSON array of gateway tokens tried after the chosen target. */
  backup_gateway_tokens: string;
  /** none, outage_only or standard. */
  retry_mode: string;
  success_rate_routing: number;
  is_default: number;
  created_at: string;
  updated_at: string;
}

/** Migration 020: an environment's upstream vault and its backfill's progress (docs/portability.md, "Live migration"). */
export interface EnvironmentUpstreamsTable {
  environment_key: string;
  url: string;
  upstream_environment_key: string;
  sealed_access_secret: string;
  public_url: string;
  receiver_token: string | null;
  pulled_on_demand: Generated<number>;
  /** idle, running, done or interrupted. */
  backfill_state: Generated<string>;
  backfill_cursor: string | null;
  backfill_seen: Generated<number>;
  backfill_backfilled: Generated<number>;
  backfill_already_here: Generated<number>;
  backfill_failed: Generated<number>;
  backfill_started_at: string | null;
  backfill_finished_at: string | null;
  backfill_throttled_until: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 021: a master key split into custodian shares (docs/key-custody.md). */
export interface MasterKeyChecksTable {
  master_key_id: string;
  /** shares. */
  provider: string;
  /** Hex HMAC-SHA-256 under the master key of a fixed label. */
  check_value: string;
  /** JSON array of the SHA-256 (hex) of each share. */
  share_digests: string;
  threshold: number;
  shares: number;
  created_at: string;
}

/** Migration 020: a token that could not be pulled from the upstream, and why. */
export interface UpstreamFailuresTable {
  environment_key: string;
  payment_method_token: string;
  reason: string;
  at: string;
}

/** Migration 020: a one-time intake credential, by its SHA-256, and what it admits. */
export interface UpstreamIntakeGrantsTable {
  credential_hash: string;
  environment_key: string;
  payment_method_token: string;
  /** JSON: the upstream's non-sensitive fields of the token. */
  fields: string;
  /** on_demand or backfill. */
  purpose: string;
  expires_at: string;
  used_at: string | null;
  /** Migration 030: the X-Request-Id of the API request that caused the pull; null outside one. */
  request_id: string | null;
}
