import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_PAN, SANDBOX_PAN } from '../bench/bench-tenant.js';
import { startTarget } from '../bench/bench-target.js';
import { startCoffer, type RunningCoffer } from '../bench/coffer-process.js';
import type { StoreKind } from '../bench/summary.js';
import { ABANDONED_CALL_GRACE_MS } from '../src/services/transactions/abandoned-calls.js';
import type { DrillReport } from './drill-report.js';
import { checkStore, countStates } from './store-check.js';
import { emptyAcknowledged, emptyTally, runWriteLoad, type LoadLane } from './write-load.js';

/** The drills' gateway timeout: short, so a call cut off by the kill is declared unknown soon. */
export const DRILL_GATEWAY_TIMEOUT_SECONDS = 2;

export interface KillDrillOptions {
  store: StoreKind;
  postgresUrl: string | null;
  fakeGatewayUrl: string;
  logDir: string;
  loadSeconds: number;
  writers: number;
}

/**
 * kill -9 under load: writers tokenize and purchase (on the test gateway and on a gateway that
 * answers after 50 ms, so calls are in flight) against `coffer serve`; SIGKILL lands mid-load;
 * the server restarts on the same store; every acknowledged token must read back, and once the
 * longest call could have ended, no transaction may be left `processing`.
 */
export async function killDrill(options: KillDrillOptions): Promise<DrillReport> {
  const name = `kill -9 under tokenize and purchase load (${options.store})`;
  const target = await startTarget({
    store: options.store,
    build: 'current',
    postgresUrl: options.postgresUrl,
    fakeGatewayUrl: options.fakeGatewayUrl,
    logDir: options.logDir,
    sizes: { cards: 2, purchases: 2 },
    env: { COFFER_GATEWAY_TIMEOUT: String(DRILL_GATEWAY_TIMEOUT_SECONDS) },
  });
  let restarted: RunningCoffer | null = null;
  try {
    const live = target.tenant.live;
    if (live === null) throw new Error('the drill needs the live tenant');
    const lanes: LoadLane[] = [
      { credentials: target.tenant.sandbox, gateway: target.tenant.testGateway, pan: SANDBOX_PAN },
      { credentials: live.credentials, gateway: live.gateway, pan: LIVE_PAN },
    ];
    const acknowledged = emptyAcknowledged();
    const tally = emptyTally();
    let killed = false;
    const url = target.coffer.url;
    const load = runWriteLoad(() => url, lanes, { workers: options.writers, stop: () => killed, acknowledged, tally });
    await sleep(options.loadSeconds * 1000);
    const acknowledgedBeforeKill = tally.acknowledged;
    await target.coffer.kill();
    killed = true;
    await load;

    const restartStarted = Date.now();
    restarted = await startCoffer({ env: target.env, logFile: target.logFile });
    const restartMs = Date.now() - restartStarted;
    const atRestart = await countStates(restarted.url, lanes.map((lane) => lane.credentials));
    // A call cut off by the kill stays `processing` until it can no longer be running anywhere.
    await sleep(DRILL_GATEWAY_TIMEOUT_SECONDS * 1000 + ABANDONED_CALL_GRACE_MS + 500);
    const check = await checkStore(restarted.url, [lanes[0]!.credentials, lanes[1]!.credentials], acknowledged);
    const lost = [
      ...check.paymentMethodsLost.map((line) => `payment method acknowledged 201 but not readable: ${line}`),
      ...check.transactionsLost.map((line) => `purchase acknowledged 200 but not readable as succeeded: ${line}`),
      ...check.unsettled.map((line) => `transaction left unsettled: ${line}`),
      ...[...tally.refused.entries()].map(([key, count]) => `${count} answers ${key} before the kill`),
      ...(tally.hung > 0 ? [`${tally.hung} requests hung (no answer in 15 s)`] : []),
    ];
    return {
      name,
      ok: lost.length === 0,
      tried: [
        `${options.writers} writers, tokenize then purchase, test gateway and a 50 ms gateway, for ${options.loadSeconds} s`,
        `SIGKILL with requests in flight, restart on the same ${options.store} store, wait ${DRILL_GATEWAY_TIMEOUT_SECONDS} s gateway timeout + ${ABANDONED_CALL_GRACE_MS / 1000} s grace, read everything back`,
      ],
      lost,
      figures: {
        requests_attempted: tally.attempted,
        acknowledged_2xx: tally.acknowledged,
        acknowledged_before_kill: acknowledgedBeforeKill,
        cut_off_by_kill: tally.noResponse,
        payment_methods_checked: check.paymentMethodsChecked,
        purchases_checked: check.transactionsChecked,
        processing_at_restart: atRestart.processing ?? 0,
        transaction_states: JSON.stringify(check.states),
        restart_ms: restartMs,
      },
      logFiles: [target.logFile, `${target.logFile}.stderr`],
    };
  } finally {
    await restarted?.stop();
    await target.close();
  }
}
