import { basicAuth, RawConnection, type RawResponse } from './raw-connection.js';

/**
 * One attack of the availability drill: a named unit that an attack process runs against the
 * server while the drill measures the victim (availability.drill.ts). New attacks (beyond
 * request bodies too) are added to the list in attacks.ts.
 */
export interface Attack {
  /** Short and stable: `--attacks` names it. */
  id: string;
  /** One line, for the report. */
  title: string;
  /**
   * What must hold while it runs: `latency`, the victim's p50 within twice its idle p50;
   * `memory`, the server's RSS under the drill's bound and the victim still answered.
   */
  goal: 'latency' | 'memory';
  /** Runs in the attack process until `until` (ms since the epoch), counting into `tally`. */
  run(target: AttackTarget, until: number, tally: AttackTally): Promise<void>;
}

/** What an attacker knows: the server, an environment key (public: it is on the merchant's page) and a tenant of its own. */
export interface AttackTarget {
  url: string;
  ca: string | null;
  environmentKey: string;
  /** An access secret of the attacker's own tenant, for attacks by an authenticated tenant. */
  ownCredentials: { environment_key: string; access_secret: string };
}

/** What the attack did: requests answered by status, and connections lost without an answer. */
export interface AttackTally {
  answered: Record<string, number>;
  unanswered: number;
}

export function emptyAttackTally(): AttackTally {
  return { answered: {}, unanswered: 0 };
}

export function countAnswer(tally: AttackTally, response: RawResponse): void {
  tally.answered[response.status] = (tally.answered[response.status] ?? 0) + 1;
}

/** One request an attack sends: the body goes out whole, or only its first `send` bytes. */
export interface AttackRequest {
  method: string;
  path: string;
  headers: Record<string, string | number>;
  body: Buffer;
}

/** The Authorization header of the attacker's own tenant. */
export function ownAuthorization(target: AttackTarget): string {
  return basicAuth(target.ownCredentials.environment_key, target.ownCredentials.access_secret);
}

export function openConnection(target: AttackTarget): Promise<RawConnection> {
  return RawConnection.open(target.url, target.ca);
}

/**
 * One connection sending `next()` requests back to back until `until`: each body whole, then its
 * answer awaited; a connection the server closes is replaced.
 */
export async function requestLoop(target: AttackTarget, next: () => AttackRequest, until: number, tally: AttackTally): Promise<void> {
  let connection: RawConnection | null = null;
  while (Date.now() < until) {
    try {
      if (connection === null || connection.isClosed) connection = await openConnection(target);
      const request = next();
      connection.head(request.method, request.path, { ...request.headers, 'Content-Length': request.body.length }).write(request.body);
      const response = await connection.response(Math.max(1, until - Date.now()));
      countAnswer(tally, response);
      await connection.flushed();
      if (response.headers.connection === 'close') {
        connection.destroy();
        connection = null;
      }
    } catch {
      if (Date.now() < until) tally.unanswered += 1;
      connection?.destroy();
      connection = null;
    }
  }
  connection?.destroy();
}

/**
 * One connection that declares a body, sends `sent` bytes of it and holds the rest back until
 * `until`, or until the server answers or closes.
 */
export async function withheldBody(target: AttackTarget, request: AttackRequest, sent: number, until: number, tally: AttackTally): Promise<void> {
  let connection: RawConnection | null = null;
  try {
    connection = await openConnection(target);
    connection.head(request.method, request.path, { ...request.headers, 'Content-Length': request.body.length }).write(request.body.subarray(0, sent));
    countAnswer(tally, await connection.response(Math.max(1, until - Date.now())));
  } catch {
    // No answer before the end: the body was held back all along (or the connection was cut).
    if (connection !== null && connection.isClosed && Date.now() < until) tally.unanswered += 1;
  } finally {
    connection?.destroy();
  }
}
