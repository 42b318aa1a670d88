// Protects shutdown (#23): stopping the sweepers aborts the round in flight (its signal), so a shutdown waits for the
// order being settled, not for a whole round of them.
import { describe, expect, it } from 'vitest';
import { startRounds } from '../src/jobs/rounds.js';

describe('sweeper rounds', () => {
  it('when the rounds are stopped mid-round, then the round\'s signal is aborted and stop resolves once the round ends', async () => {
    let inRound: () => void = () => {};
    const started = new Promise<void>((resolve) => (inRound = resolve));
    let sawAbort = false;
    const rounds = startRounds(10, async (signal) => {
      inRound();
      // A round of many orders: it checks its signal between them.
      for (let order = 0; order < 1_000 && !signal.aborted; order++) await new Promise((resolve) => setTimeout(resolve, 20));
      sawAbort = signal.aborted;
    });
    await started;
    await rounds.stop();
    expect(sawAbort).toBe(true);
  });
});
