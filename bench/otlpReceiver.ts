/**
 * A local OTLP/HTTP receiver for the benchmarks, in its own process (so it
 * does not share an event loop with the load generator): it reads each
 * export request whole, counts it and answers 200 with an empty
 * ExportTraceServiceResponse, as a collector would. `GET /stats` answers
 * the counts. Prints its port.
 */
import { createServer } from 'node:http';

const stats = { requests: 0, bytes: 0 };
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    stats.requests += 1;
    stats.bytes += bytes;
    const json = req.headers['content-type']?.includes('json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`PORT=${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
