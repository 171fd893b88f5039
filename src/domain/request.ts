/**
 * What a service knows of the API request it serves: its id (X-Request-Id), stamped on the events
 * the request causes (docs/events.md). Routes pass it; nothing reads it from an ambient context
 * (docs/architecture.md, "Request context"). The sweeps, the CLI and background jobs pass none.
 */
export interface RequestMeta {
  readonly id: string | null;
}

/** Work that no API request caused: its events carry no request id. */
export const NO_REQUEST: RequestMeta = Object.freeze({ id: null });
