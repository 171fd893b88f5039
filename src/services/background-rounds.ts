/**
 * A round of background work run every so often on this node (the cache sweep, the audit chain's
 * upkeep, the overview's counting): never two at once (a tick that finds one under way skips), on
 * an unref'd timer that never keeps the process alive, its errors handed to `onError` so the next
 * round tries again, and stopped by waiting for the round under way.
 */
export class BackgroundRounds<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly round: () => Promise<T>) {}

  /** A round every `intervalMs` (and one at once with `immediately`); a second start is ignored. */
  start(intervalMs: number, onError: (error: unknown) => void, onRound: (result: T) => void = () => undefined, options: { immediately?: boolean } = {}): void {
    if (this.timer !== null) return;
    const tick = () => {
      if (this.running !== null) return;
      this.running = this.round()
        .then(onRound, onError)
        .finally(() => {
          this.running = null;
        });
    };
    if (options.immediately === true) tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a round under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
