import { z } from 'zod';

/** What the traveller does to a test eSIM (contract §13's control API). */
export type TestEsimAction = { kind: 'install' } | { kind: 'usage'; addMb: number } | { kind: 'expire' } | { kind: 'delete' };

/** The simulator's view of the eSIM after the action: what the platform's view converges to. */
export interface SimulatedEsim {
  status: string;
  bundles: Array<{ reference: string; dataUsedMb: number; status: string }>;
}

export type ControlResult =
  | { kind: 'done'; esim: SimulatedEsim }
  | { kind: 'not_found' }
  /** Unreachable, a timeout, a notification the platform refused (502), an answer we cannot read: nothing we can promise. */
  | { kind: 'unavailable'; detail: string };

export interface SimulatorControl {
  act(iccid: string, action: TestEsimAction, timeoutMs: number): Promise<ControlResult>;
}

const view = z.object({
  status: z.string().max(40),
  bundles: z.array(z.object({ reference: z.string().max(256), dataUsedMb: z.number().int().min(0), status: z.string().max(40) })).max(1000),
});

const maxAnswerChars = 256 * 1024;

/**
 * The simulator's control API (contract §13), reached at test mode's
 * connectivity upstream (TEST_MODE_CONNECTIVITY_URL: the simulator serves its
 * connectivity API and its control API on one port). Only test mode's
 * helpers call it, so only the test-mode simulator is ever driven. The
 * simulator answers once the platform accepted (202) every notification the
 * action caused. Never throws: each outcome is a value.
 */
export function createSimulatorControl(options: { baseUrl: string }): SimulatorControl {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  return {
    async act(iccid, action, timeoutMs) {
      const url = new URL(`simulator/esims/${encodeURIComponent(iccid)}/${action.kind}`, base);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(action.kind === 'usage' ? { addMb: action.addMb } : {}),
          signal: AbortSignal.timeout(Math.max(1, timeoutMs)),
        });
      } catch (error) {
        const name = error instanceof Error ? error.name : '';
        return { kind: 'unavailable', detail: name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${timeoutMs} ms` : 'the simulator could not be reached' };
      }
      const text = (await response.text()).slice(0, maxAnswerChars);
      if (response.status === 404) return { kind: 'not_found' };
      if (response.status !== 200) return { kind: 'unavailable', detail: `the simulator answered HTTP ${response.status}` };
      let parsed;
      try {
        parsed = view.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) return { kind: 'unavailable', detail: 'the simulator answered an unreadable view' };
      return { kind: 'done', esim: parsed.data };
    },
  };
}
