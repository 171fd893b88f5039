/**
 * Counts turns of the event loop (one immediate a turn) until stopped: how tests see that a long
 * piece of work let other work run between its parts, without timing anything.
 */
export function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (running = false) };
}
