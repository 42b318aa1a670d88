import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../scripts/launcher/supervisor.js';
import { control } from '../../e2e/support/client.js';
import { observations } from './load.js';

/** One disruption: when it began, when its own step ended (the node back, the replica restarted), and when every replica was ready again. */
export interface Phase {
  name: string;
  detail: string;
  startedAt: number;
  endedAt: number;
  readyAt: number;
}

export const phases: Phase[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readyAgain(): Promise<number> {
  for (;;) {
    if ((await control<{ ready: boolean }>('/ready')).body.ready) return Date.now();
    await sleep(200);
  }
}

/** Runs `step` as one named disruption and records it. */
export async function disrupt(name: string, step: () => Promise<string>): Promise<void> {
  const startedAt = Date.now();
  const detail = await step();
  const endedAt = Date.now();
  phases.push({ name, detail, startedAt, endedAt, readyAt: await readyAgain() });
}

export async function expectControl<T = any>(path: string, method = 'POST'): Promise<T> {
  const answer = await control<T>(path, method);
  if (answer.status !== 200) throw new Error(`control ${method} ${path} answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

export interface PhaseReport {
  disruption: string;
  detail: string;
  answers: number;
  unavailable503: number;
  dropped: number;
  /** From the first to the last 503 or dropped answer, ms (0 when there was none). */
  badForMs: number;
  /** From the disruption's start until every replica answered /readyz 200, ms. */
  readyAfterMs: number;
}

/** What clients saw during each disruption (its start until everything was ready again, plus 2 s). */
export function report(): PhaseReport[] {
  const rows = phases.map((phase) => {
    const during = observations.filter((o) => o.at >= phase.startedAt && o.at <= phase.readyAt + 2_000);
    const bad = during.filter((o) => o.status === 503 || o.status === 0);
    return {
      disruption: phase.name,
      detail: phase.detail,
      answers: during.length,
      unavailable503: bad.filter((o) => o.status === 503).length,
      dropped: bad.filter((o) => o.status === 0).length,
      badForMs: bad.length === 0 ? 0 : bad[bad.length - 1]!.at - bad[0]!.at,
      readyAfterMs: phase.readyAt - phase.startedAt,
    };
  });
  const dir = join(repoRoot, 'var', 'cluster');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'disruptions.json'), `${JSON.stringify({ phases, rows }, null, 2)}\n`);
  return rows;
}
