import autocannon from 'autocannon';
import { summarizeLatencies } from './latency.js';
import type { LoadJob, LoadResult } from './load-job.js';

/**
 * Child process of the load driver: receives one LoadJob over IPC, drives it with autocannon,
 * sends the LoadResult back and exits. Paths and bodies are rotated request by request.
 */

function run(job: LoadJob): Promise<LoadResult> {
  let pathTurn = 0;
  let bodyTurn = 0;
  const bodies = job.bodies ?? [];
  const rotate = (request: autocannon.Request): autocannon.Request => {
    request.path = job.paths[pathTurn++ % job.paths.length];
    if (bodies.length > 0) request.body = bodies[bodyTurn++ % bodies.length];
    return request;
  };
  // Response times of 2xx answers, as autocannon counts latency (errors are counted apart).
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.durationSeconds,
        // A request that takes this long is a finding (counted in `timeouts`), not a figure.
        timeout: 30,
        requests: [{ method: job.method, path: job.paths[0], headers: job.headers, ...(bodies.length > 0 ? { body: bodies[0] } : {}), setupRequest: rotate }],
      },
      (error, result) => {
        if (error !== null && error !== undefined) return reject(error instanceof Error ? error : new Error(String(error)));
        const statusCodes: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
        resolve({
          requests: result.requests.total,
          durationSeconds: result.duration,
          latency: summarizeLatencies(times),
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes,
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: Error) => process.send?.({ error: error.message }, () => process.exit(1)),
  );
});
