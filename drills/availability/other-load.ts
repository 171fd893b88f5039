import fs from 'node:fs';

/**
 * How busy the machine was with work other than the drill's own: all CPU time spent (Linux
 * /proc/stat: user, nice, system, irq, softirq, steal) minus what the server, the attacker and the
 * drill itself used (/proc/<pid>/stat). The availability drill's bound is tight (the victim's p50
 * is a fraction of a millisecond here): another build or test suite on the same cores moves it
 * more than any attack does, and the report says so (docs/reliability.md, "Availability").
 *
 * The kernel's softirq work for the attack's own traffic counts as "other" (it is charged to no
 * process): a few percent of a core under the body attacks.
 */

/** Clock ticks per second of /proc (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time the whole machine spent busy, in ms; null where /proc/stat is not there. */
export function machineBusyMs(statText?: string): number | null {
  let text = statText;
  try {
    text ??= fs.readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  const fields = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (fields === undefined || fields.length < 8 || fields.some((value) => !Number.isFinite(value))) return null;
  // user nice system idle iowait irq softirq steal …: everything but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}

/** CPU time one process (all its threads) has used, in ms; null once it is gone. */
export function processCpuMs(pid: number, statText?: string): number | null {
  let text = statText;
  try {
    text ??= fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? ((user + system) * 1000) / TICKS_PER_SECOND : null;
}

/** Starts counting; `stop()` gives the other load in percent of one core, or null where unknown. */
export function watchOtherLoad(ownPids: readonly number[]): { stop(): number | null } {
  const started = performance.now();
  const machine = machineBusyMs();
  const own = ownPids.map((pid) => processCpuMs(pid));
  return {
    stop: () => {
      const elapsed = performance.now() - started;
      const machineNow = machineBusyMs();
      const ownNow = ownPids.map((pid) => processCpuMs(pid));
      if (machine === null || machineNow === null || elapsed <= 0) return null;
      let ownUsed = 0;
      for (const [index, before] of own.entries()) {
        const after = ownNow[index];
        // A process that ended meanwhile (the attacker, once done) is counted up to its last reading.
        if (before !== null && before !== undefined && after !== null && after !== undefined) ownUsed += after - before;
      }
      return Math.max(0, Math.round(((machineNow - machine - ownUsed) / elapsed) * 100));
    },
  };
}
