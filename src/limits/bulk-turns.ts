/*
 * Turns of the event loop for bulk work: the slices of a large response body being written
 * (src/http/sliced-body.ts) and the statements of a page of large rows being read
 * (src/store/repositories/page.ts). Each such job does a bounded piece of work (about a millisecond),
 * then waits here for its next turn. Turns are handed out first come, first served, ONE per turn of
 * the event loop whatever the number of jobs: a request that arrives meanwhile waits for at most
 * one piece before it is read and answered, however many large pages are being read at once, and
 * the jobs share the rest of the loop's time in turn. docs/wire-compatibility.md, "Large pages".
 */

const waiting: Array<() => void> = [];
let scheduled = false;

function handOutTurn(): void {
  const next = waiting.shift();
  // The next job's turn is in the next turn of the loop (an immediate queued while immediates run
  // waits for the next check phase): the requests that came in meanwhile are read first.
  if (waiting.length > 0) setImmediate(handOutTurn);
  else scheduled = false;
  next?.();
}

/** Resolves on a later turn of the event loop, when this job's turn comes. */
export function nextBulkTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(handOutTurn);
    }
  });
}
