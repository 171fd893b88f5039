import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config/config.js';

/**
 * Bytes of log lines held in memory before they are written, together, to standard output
 * (about 15 request lines). Written one by one, each line was a write of its own handed to
 * Node's thread pool: a thread woken, a system call and a callback back on the event loop for
 * every request, some 10 µs of a 401 that costs 40 (docs/reliability.md, "Logs").
 */
export const LOG_BUFFER_BYTES = 4 * 1024;
/** Lines held are written at least this often, however few (an idle server's last lines). */
export const LOG_FLUSH_INTERVAL_MS = 1_000;

/**
 * Where `coffer serve` logs: standard output, written off the event loop, in batches of
 * LOG_BUFFER_BYTES or every LOG_FLUSH_INTERVAL_MS. What is held is written when the process exits
 * (a clean stop or an uncaught error, pino's exit hook); a process killed outright (SIGKILL, the
 * out-of-memory killer) loses it: at most LOG_BUFFER_BYTES, or the last second of lines.
 */
export function logDestination(fd = 1): DestinationStream {
  return pino.destination({ dest: fd, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS });
}

/**
 * Structured JSON logs. Request logging never includes bodies or headers; the redact paths
 * are a second line of defence for any object that reaches a log call by mistake.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'coffer' },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.password',
        '*.secret',
        '*.access_secret',
        '*.number',
        '*.verification_value',
        '*.login',
        '*.credentials',
      ],
      censor: '[FILTERED]',
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
