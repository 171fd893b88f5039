import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-job.js';

const workerPath = fileURLToPath(new URL('./autocannon-worker.js', import.meta.url));

/**
 * Runs one load job in a child process of its own (autocannon never runs in the process that
 * starts the servers, nor in a server). Rejects when the worker fails or outlives the job by
 * far (a stuck run is reported, not waited for).
 */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(workerPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answered = false;
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`load worker did not finish within ${job.durationSeconds + 60} s`));
    }, (job.durationSeconds + 60) * 1000);
    child.once('message', (message: { result?: LoadResult; error?: string }) => {
      answered = true;
      clearTimeout(watchdog);
      if (message.result !== undefined) resolve(message.result);
      else reject(new Error(`load worker failed: ${message.error ?? 'no reason given'}`));
    });
    child.once('exit', (code) => {
      clearTimeout(watchdog);
      if (!answered) reject(new Error(`load worker exited with ${code} before reporting`));
    });
    child.send(job);
  });
}
