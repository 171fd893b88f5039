/**
 * What a service knows of the API request it serves: its id (X-Request-Id), stamped on the events
 * the request causes (docs/events.md), and who sent it, for the card access records
 * (docs/audit.md). Routes pass it; nothing reads it from an ambient context (docs/architecture.md,
 * "Request context"). The sweeps, the CLI and background jobs pass none.
 */
export interface RequestMeta {
  readonly id: string | null;
  /** The access secret that authenticated the request (http/auth.ts sets it on the request); absent or null otherwise. */
  readonly auth?: { readonly secret: { readonly key: string } } | null;
}

/** Work that no API request caused: its events carry no request id. */
export const NO_REQUEST: RequestMeta = Object.freeze({ id: null });
