import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config/config.js';

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
