import type { Clock } from '../../src/domain/clock.js';

/** A clock the tests move by hand, to cross time windows without waiting for them. */
export class ManualClock implements Clock {
  private at: number;

  /** Starts at `start` (epoch ms), by default the current time. */
  constructor(start: number = Date.now()) {
    this.at = start;
  }

  now(): Date {
    return new Date(this.at);
  }

  set(ms: number): void {
    this.at = ms;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

/** The current time truncated to a whole second (the wire format has no milliseconds). */
export function currentWholeSecond(): number {
  return Math.floor(Date.now() / 1000) * 1000;
}
