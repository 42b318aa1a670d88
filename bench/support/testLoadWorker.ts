/**
 * The test-mode load of bench/testMode.ts, in a process of its own: its
 * connections' CPU (a few hundred requests a second, most answered 429)
 * would otherwise share the event loop that times the live orders, and
 * the live latencies would measure the benchmark instead of the platform.
 * Started by fork with its job in argv; answers 'counts' with its counts so
 * far (the parent brackets its timed window), and 'stop' with its final
 * counts, then exits.
 */
// With planId '-', GETs `url` instead of ordering: the cheapest rate-limited request, to measure what a 429 costs.
const [url, key, planId, connectionsArg] = process.argv.slice(2);
if (!url || !key || !planId || !connectionsArg) throw new Error('usage: testLoadWorker <url> <key> <planId or -> <connections>');
const connections = Number(connectionsArg);

const counts = { sent: 0, created: 0, limited: 0 };
let stop = false;

async function post(i: number, worker: number): Promise<number> {
  if (planId === '-') {
    const answer = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
    await answer.arrayBuffer();
    return answer.status;
  }
  const body = { clientRequestId: `t${worker}-${Date.now()}-${i}-${Math.random().toString(36).slice(2, 8)}`, planId, email: 'traveller@example.com', phoneNumber: '+33612345678' };
  const answer = await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  await answer.arrayBuffer();
  return answer.status;
}

const workers = Array.from({ length: connections }, async (_, w) => {
  for (let i = 0; !stop; i++) {
    const status = await post(i, w).catch(() => 0);
    counts.sent += 1;
    if (status === 201 || status === 200) counts.created += 1;
    else if (status === 429) counts.limited += 1;
  }
});

process.on('message', (message) => {
  if (message === 'counts') process.send?.({ ...counts });
  if (message !== 'stop') return;
  stop = true;
  void Promise.all(workers).then(() => {
    process.send?.(counts, () => process.exit(0));
  });
});
process.send?.('started');
