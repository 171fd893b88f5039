/** A receiver is usable until it is redacted (its credentials and SFTP secrets destroyed). */
export const RECEIVER_STATES = ['retained', 'redacted'] as const;
export type ReceiverState = (typeof RECEIVER_STATES)[number];

/** One credential as kept: safe ones with their value in clear, unsafe ones by name only (the value is sealed). */
export interface ReceiverCredential {
  name: string;
  safe: boolean;
  value?: string;
}

/** The sealed parts of a receiver: opaque cipher blobs, opened only by the receiver service. */
export interface SealedReceiverSecrets {
  /** JSON object name → value of the unsafe credentials, sealed with the environment's data key. */
  credentials: string | null;
  /** JSON {password?, private_key?} of the SFTP login, sealed with the environment's data key. */
  protocol: string | null;
}

/**
 * A receiver of an environment (wire-reference §3.4). Timestamps are ISO-8601 UTC strings, the
 * wire format; they sort as text.
 */
export interface Receiver {
  token: string;
  environmentKey: string;
  /** test, http, sftp, or a named receiver of the operator's catalog. */
  receiverType: string;
  /** scheme://host[:port] entries that delivery and export URLs must match, in the order given. */
  hostnames: string[];
  state: ReceiverState;
  companyName: string | null;
  subMerchantKey: string | null;
  /** The credentials in the order sent. */
  credentials: ReceiverCredential[];
  /** SFTP login user (not secret). */
  protocolUser: string | null;
  /** SFTP host key to pin (OpenSSH public key line or SHA256: fingerprint). */
  hostKey: string | null;
  /** A certificate of the same environment presented as the TLS client certificate (mTLS). */
  certificateToken: string | null;
  createdAt: string;
  updatedAt: string;
  sealed: SealedReceiverSecrets;
}

/** A receiver without its environment and its sealed parts: what a view may show of it. */
export type ReceiverSnapshot = Omit<Receiver, 'environmentKey' | 'sealed'>;

/** The fields a change of a receiver may set; the others stay as they are. */
export interface ReceiverPatch {
  hostnames?: string[];
  state?: ReceiverState;
  subMerchantKey?: string | null;
  credentials?: ReceiverCredential[];
  protocolUser?: string | null;
  hostKey?: string | null;
  certificateToken?: string | null;
  sealed?: Partial<SealedReceiverSecrets>;
  updatedAt: string;
}
