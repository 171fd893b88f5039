import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { peakRssMb } from './coffer-process.js';

/** A server the bench runs beside Coffer (the baseline, the fake gateway), in a process of its own. */
export interface HelperServer {
  url: string;
  pid: number;
  peakRssMb(): number | null;
  stop(): Promise<void>;
}

/**
 * Forks `script` (a module next to this one that listens and then sends `{ url }` over IPC) and
 * waits for its address. `args` reach the script as process.argv.
 */
export function startHelper(script: string, args: string[] = []): Promise<HelperServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within 15 s`));
    }, 15_000);
    child.once('message', (message: { url: string }) => {
      clearTimeout(timer);
      resolve({
        url: message.url,
        pid: child.pid as number,
        peakRssMb: () => peakRssMb(child.pid as number),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening`));
    });
  });
}
