import type { Clock } from '../../domain/clock.js';
import { BackgroundRounds } from '../background-rounds.js';
import type { AuditChainService } from './audit-chain.service.js';

/** How often the chainer runs (COFFER_AUDIT_* settings, docs/audit.md). */
export interface ChainerSchedule {
  /** Links pending entries this often. */
  chainIntervalMs: number;
  /** Signs the head this often (when it moved). */
  checkpointIntervalMs: number;
  /** Prunes entries past the retention this often. */
  pruneIntervalMs: number;
}

export const DEFAULT_CHAINER_SCHEDULE: ChainerSchedule = { chainIntervalMs: 1_000, checkpointIntervalMs: 15 * 60_000, pruneIntervalMs: 24 * 3_600_000 };

/** What one round did. */
export interface ChainerRound {
  linked: number;
  checkpoint: number | null;
  pruned: number;
}

/**
 * Runs the chain's upkeep in the background on every node: link what was recorded, sign the head
 * now and then, prune past the retention once a day. Nodes take turns through the chain head.
 */
export class AuditChainer {
  private readonly rounds = new BackgroundRounds(() => this.round());
  private lastCheckpointAt: number;
  private lastPruneAt = 0;

  constructor(
    private readonly chain: AuditChainService,
    private readonly clock: Clock,
    private readonly schedule: ChainerSchedule = DEFAULT_CHAINER_SCHEDULE,
  ) {
    this.lastCheckpointAt = clock.now().getTime();
  }

  /** One round: link, and sign or prune when their time has come. */
  async round(): Promise<ChainerRound> {
    const now = this.clock.now().getTime();
    const linked = await this.chain.chainPending();
    let checkpoint: number | null = null;
    if (now - this.lastCheckpointAt >= this.schedule.checkpointIntervalMs) {
      checkpoint = (await this.chain.checkpoint())?.position ?? null;
      this.lastCheckpointAt = now;
    }
    let pruned = 0;
    if (now - this.lastPruneAt >= this.schedule.pruneIntervalMs) {
      pruned = (await this.chain.prune()).pruned;
      this.lastPruneAt = now;
    }
    return { linked, checkpoint, pruned };
  }

  start(onError: (error: unknown) => void, onRound: (round: ChainerRound) => void = () => undefined): void {
    this.rounds.start(this.schedule.chainIntervalMs, onError, onRound);
  }

  /** Stops the schedule and waits for a round under way. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }
}
