/**
 * What one load run is, as plain data: it crosses a process boundary (the driver forks a worker
 * that runs autocannon, so the load generator never shares a CPU queue or event loop with the
 * process it measures).
 */
export interface LoadJob {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  method: 'GET' | 'POST';
  /** Request paths, used in turn (one token per request spreads the load over many rows). */
  paths: string[];
  /** Request bodies, used in turn; none for GET. */
  bodies?: string[];
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

/** What came back from one run: the figures autocannon measured, nothing else. */
export interface LoadResult {
  /** Completed responses. */
  requests: number;
  /** Seconds the run lasted. */
  durationSeconds: number;
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Responses with a status other than 2xx. */
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Responses per status code, e.g. `{"200": 1234}`. */
  statusCodes: Record<string, number>;
}
