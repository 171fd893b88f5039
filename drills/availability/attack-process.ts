import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { emptyAttackTally, type AttackTally, type AttackTarget } from './attack.js';
import { attackById } from './attacks.js';

/**
 * Each attack runs in a process of its own, so the drill's victim measures the server, not an
 * event loop shared with the attacker. The drill forks this module with the attack's id, target
 * and end time; it answers `ready` once its bodies are built and its tally at the end.
 */

interface AttackOrder {
  attack: string;
  target: AttackTarget;
  /** How long to attack once ready, in ms. */
  durationMs: number;
}

type AttackMessage = { kind: 'ready' } | { kind: 'done'; tally: AttackTally };

/** A running attack: `ready` when it has begun, `done` with its tally when it has ended. */
export interface RunningAttack {
  /** The attack process (its CPU is the drill's own, not the machine's other load). */
  pid: number | undefined;
  ready: Promise<void>;
  done: Promise<AttackTally>;
  stop(): void;
}

/** Forks the attack process. */
export function startAttack(order: AttackOrder): RunningAttack {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(order)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const done = new Promise<AttackTally>((resolve, reject) => {
    child.on('message', (message: AttackMessage) => {
      if (message.kind === 'ready') onReady();
      else resolve(message.tally);
    });
    child.once('exit', (code) => reject(new Error(`the attack process ${order.attack} exited with ${code} before reporting`)));
  });
  // An attack that fails to start must not leave the drill waiting for `ready`.
  done.catch(() => onReady());
  return { pid: child.pid, ready, done, stop: () => child.kill('SIGTERM') };
}

async function main(order: AttackOrder): Promise<void> {
  const attack = attackById(order.attack);
  const tally = emptyAttackTally();
  const send = (message: AttackMessage) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));
  await send({ kind: 'ready' });
  await attack.run(order.target, Date.now() + order.durationMs, tally);
  await send({ kind: 'done', tally });
  process.exit(0);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  main(JSON.parse(process.argv[2] ?? '{}') as AttackOrder).catch((error: unknown) => {
    process.stderr.write(`attack failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
