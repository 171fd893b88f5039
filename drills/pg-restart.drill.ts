import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { LIVE_PAN, SANDBOX_PAN } from '../bench/bench-tenant.js';
import { startTarget } from '../bench/bench-target.js';
import { ABANDONED_CALL_GRACE_MS } from '../src/services/transactions/abandoned-calls.js';
import { notRun, type DrillReport } from './drill-report.js';
import { DRILL_GATEWAY_TIMEOUT_SECONDS } from './kill9.drill.js';
import { checkStore, countStates } from './store-check.js';
import { emptyAcknowledged, emptyTally, runWriteLoad, type LoadLane } from './write-load.js';

const run = promisify(execFile);

/** A Debian/Ubuntu PostgreSQL cluster, as pg_ctlcluster names it. */
export interface PgCluster {
  version: string;
  name: string;
  port: number;
}

/** The cluster of `pg_lsclusters` output that listens on `port`, or null. */
export function clusterOnPort(lsclustersOutput: string, port: number): PgCluster | null {
  for (const line of lsclustersOutput.split('\n')) {
    const [version, name, clusterPort] = line.trim().split(/\s+/);
    if (version !== undefined && name !== undefined && Number(clusterPort) === port) return { version, name, port };
  }
  return null;
}

/** Finds the local cluster behind `postgresUrl`; a reason when there is none to restart. */
export async function findCluster(postgresUrl: string): Promise<PgCluster | string> {
  const url = new URL(postgresUrl);
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname)) return `PostgreSQL at ${url.hostname} is not local`;
  try {
    const { stdout } = await run('pg_lsclusters', ['--no-header']);
    return clusterOnPort(stdout, Number(url.port || 5432)) ?? `no local cluster listens on port ${url.port || 5432}`;
  } catch {
    return 'pg_lsclusters is not available (not a Debian-style PostgreSQL install)';
  }
}

export interface PgRestartOptions {
  postgresUrl: string;
  fakeGatewayUrl: string;
  logDir: string;
  /** Seconds of load before the restart, and after it. */
  beforeSeconds: number;
  afterSeconds: number;
  writers: number;
}

/**
 * PostgreSQL restarted under load (`pg_ctlcluster … restart`): Coffer keeps running, answers
 * errors (not hangs) while the database is gone, recovers on its own once it is back, and loses
 * nothing it acknowledged. Restarting the cluster affects everything else using it.
 */
export async function pgRestartDrill(options: PgRestartOptions): Promise<DrillReport> {
  const name = 'PostgreSQL restarted under load';
  const cluster = await findCluster(options.postgresUrl);
  if (typeof cluster === 'string') return notRun(name, cluster);
  const target = await startTarget({
    store: 'postgres',
    build: 'current',
    postgresUrl: options.postgresUrl,
    fakeGatewayUrl: options.fakeGatewayUrl,
    logDir: options.logDir,
    sizes: { cards: 2, purchases: 2 },
    env: { COFFER_GATEWAY_TIMEOUT: String(DRILL_GATEWAY_TIMEOUT_SECONDS) },
  });
  try {
    const live = target.tenant.live!;
    const lanes: LoadLane[] = [
      { credentials: target.tenant.sandbox, gateway: target.tenant.testGateway, pan: SANDBOX_PAN },
      { credentials: live.credentials, gateway: live.gateway, pan: LIVE_PAN },
    ];
    const acknowledged = emptyAcknowledged();
    const tally = emptyTally();
    let stop = false;
    let restartDoneAt: number | null = null;
    let firstSuccessAfter: number | null = null;
    let failedAfterRestart = 0;
    const load = runWriteLoad(() => target.coffer.url, lanes, {
      workers: options.writers,
      stop: () => stop,
      acknowledged,
      tally,
      onOutcome: (ok) => {
        if (restartDoneAt === null) return;
        if (ok) firstSuccessAfter ??= Date.now();
        else if (firstSuccessAfter === null) failedAfterRestart += 1;
      },
    });
    await sleep(options.beforeSeconds * 1000);
    const before = { ...tally, refused: new Map(tally.refused) };
    const restartStarted = Date.now();
    await run('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'restart']);
    restartDoneAt = Date.now();
    await sleep(options.afterSeconds * 1000);
    stop = true;
    await load;

    const alive = target.coffer.child.exitCode === null && target.coffer.child.signalCode === null;
    if (!alive) {
      const crash = target.coffer.stderr().split('\n').filter((line) => line.trim() !== '' && !line.startsWith('Coffer listening')).slice(0, 3).join(' | ');
      return { name, ok: false, tried: [`pg_ctlcluster ${cluster.version} ${cluster.name} restart under load`], lost: [`Coffer exited when the database restarted: ${crash}`], figures: { requests_attempted: tally.attempted, acknowledged_2xx: tally.acknowledged }, logFiles: [target.logFile, `${target.logFile}.stderr`] };
    }
    const atEnd = await countStates(target.coffer.url, lanes.map((lane) => lane.credentials));
    const ready = await fetch(`${target.coffer.url}/readyz`).then((reply) => reply.status).catch(() => 0);
    await sleep(DRILL_GATEWAY_TIMEOUT_SECONDS * 1000 + ABANDONED_CALL_GRACE_MS + 500);
    const check = await checkStore(target.coffer.url, lanes.map((lane) => lane.credentials), acknowledged);
    const duringOutage = [...tally.refused.entries()].map(([key, count]) => `${key} ×${count - (before.refused.get(key) ?? 0)}`);
    const lost = [
      ...(ready === 200 ? [] : [`/readyz answered ${ready} after the restart`]),
      ...(firstSuccessAfter === null ? ['no request succeeded after the database came back'] : []),
      ...check.paymentMethodsLost.map((line) => `payment method acknowledged 201 but not readable: ${line}`),
      ...check.transactionsLost.map((line) => `purchase acknowledged 200 but not readable as succeeded: ${line}`),
      ...check.unsettled.map((line) => `transaction left unsettled: ${line}`),
      ...(tally.hung > 0 ? [`${tally.hung} requests hung (no answer in 15 s)`] : []),
      ...(before.refused.size > 0 ? [`errors before the restart: ${[...before.refused.entries()].map(([key, count]) => `${key} ×${count}`).join(', ')}`] : []),
    ];
    return {
      name,
      ok: lost.length === 0,
      tried: [
        `${options.writers} writers, tokenize then purchase (test gateway and a 50 ms gateway), ${options.beforeSeconds} s before and ${options.afterSeconds} s after`,
        `pg_ctlcluster ${cluster.version} ${cluster.name} restart (port ${cluster.port}) in the middle; Coffer itself not restarted`,
      ],
      lost,
      figures: {
        requests_attempted: tally.attempted,
        acknowledged_2xx: tally.acknowledged,
        restart_seconds: ((restartDoneAt - restartStarted) / 1000).toFixed(1),
        recovered_seconds_after_restart: firstSuccessAfter === null ? 'never' : ((firstSuccessAfter - restartDoneAt) / 1000).toFixed(2),
        failed_after_restart_before_recovery: failedAfterRestart,
        answers_during_outage: duringOutage.join(', ') || 'none',
        cut_off: tally.noResponse,
        coffer_pid_unchanged: 'yes',
        processing_when_load_ended: atEnd.processing ?? 0,
        transaction_states: JSON.stringify(check.states),
      },
      logFiles: [target.logFile, `${target.logFile}.stderr`],
    };
  } finally {
    await target.close();
  }
}
