import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimNamespace, instanceFile, runningInstance } from '../scripts/launcher/instance.js';
import { anyFreePort, claimPorts, freePorts, portHolder, portIsFree, PortTaken } from '../scripts/launcher/ports.js';
import { defaultPorts } from '../scripts/launcher/services.js';
import { repoRoot, waitUntilReady, type Running } from '../scripts/launcher/supervisor.js';

/** Boot that cannot lie (#17): ports, readiness identity and the one-platform-per-namespace rule. */

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(headers: Record<string, string> = {}): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end('{"status":"ready","checks":{}}'));
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { server, port: (server.address() as AddressInfo).port };
}

function sleeper() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  closers.push(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  return { child, exited };
}

describe('ports', () => {
  it('names the process holding a port (this one)', async () => {
    const { port } = await listen();
    expect(portHolder(port)).toMatch(new RegExp(`^pid ${process.pid} \\(.*node`));
  });

  it('moves a taken internal port to a free one and names the holder of a taken public one', async () => {
    const { port } = await listen();
    const internal = await claimPorts({ ...defaultPorts, catalog: { grpc: port, health: 0 }, gateway: { http: 0, admin: 0 } }, () => true);
    expect(internal.ports.catalog!.grpc).not.toBe(port);
    // Only the catalog's move is this test's: another default port may be taken on a busy machine (a running npm start).
    expect(internal.moved.filter((line) => line.startsWith('catalog '))).toEqual([expect.stringContaining(`catalog grpc ${port} → `)]);

    const claim = claimPorts({ gateway: { http: port, admin: 0 } }, () => false);
    await expect(claim).rejects.toBeInstanceOf(PortTaken);
    await expect(claim).rejects.toThrow(`Port ${port} (gateway http) is in use by pid ${process.pid} (`);
  });

  it('hands out ports below the kernel\'s ephemeral range, where no outgoing connection can take one before its service binds it', async () => {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const handed = [await anyFreePort(), ...Object.values(await freePorts()).flatMap((kinds) => Object.values(kinds))];
    for (const port of handed) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
      expect(await portIsFree(port)).toBe(true);
    }
    expect(new Set(handed.slice(1)).size).toBe(handed.length - 1);
  });
});

describe('readiness', () => {
  it('does not take a 200 from another process for readiness', async () => {
    const { child, exited } = sleeper();
    const { port } = await listen({ 'x-platform-namespace': 'esim', 'x-boot-id': 'someone-else' });
    const running: Running = {
      spec: { name: 'catalog', env: {}, readyUrl: `http://127.0.0.1:${port}/readyz` },
      child,
      exited,
      bootId: 'mine',
      namespace: 'esim',
      lastError: () => undefined,
    };
    await expect(waitUntilReady(running, 1_500)).rejects.toThrow(/catalog was not ready within 1\.5s; .* was answered by another process \(namespace esim, boot id someone-else\)/);
  });

  it('accepts the answer that carries its namespace and boot id, and reports the boot error of a process that died', async () => {
    const { child, exited } = sleeper();
    const { port } = await listen({ 'x-platform-namespace': 'esim', 'x-boot-id': 'mine' });
    const running: Running = { spec: { name: 'catalog', env: {}, readyUrl: `http://127.0.0.1:${port}/readyz` }, child, exited, bootId: 'mine', namespace: 'esim', lastError: () => undefined };
    await expect(waitUntilReady(running, 5_000)).resolves.toBeUndefined();

    const dead = sleeper();
    dead.child.kill('SIGKILL');
    const died: Running = { ...running, spec: { ...running.spec, readyUrl: 'http://127.0.0.1:1/readyz' }, child: dead.child, exited: dead.exited, lastError: () => 'listen EADDRINUSE: address already in use 0.0.0.0:50052' };
    await expect(waitUntilReady(died, 5_000)).rejects.toThrow('catalog exited with code null while starting: listen EADDRINUSE: address already in use 0.0.0.0:50052');
  });
});

describe('one platform per namespace', () => {
  it('refuses a namespace whose launcher holds the lock, and records its own ports otherwise', async () => {
    const namespace = `boottest${process.pid}`;
    const { child } = sleeper();
    const dir = join(instanceFile(namespace), '..');
    mkdirSync(dir, { recursive: true });
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    // A live process whose pid is recorded (a pid recycled after a reboot) holds no lock: not a running platform.
    writeFileSync(instanceFile(namespace), JSON.stringify({ pid: child.pid, namespace, startedAt: '', ports: {} }));
    const release = await claimNamespace(namespace, { catalog: { grpc: 1234 } });
    closers.push(release);
    expect(JSON.parse(readFileSync(instanceFile(namespace), 'utf8'))).toMatchObject({ pid: process.pid, ports: { catalog: { grpc: 1234 } } });
    await expect(claimNamespace(namespace, {})).resolves.toBeTypeOf('function'); // the same launcher may claim again
  });

  it('when the launcher holding a namespace is SIGKILLed (even left unreaped), then the next launcher starts', async () => {
    const namespace = `boottest${process.pid}z`;
    closers.push(() => rmSync(join(instanceFile(namespace), '..'), { recursive: true, force: true }));
    // The holder's parent becomes `sleep`, which never reaps it: once killed it stays a zombie, and kill(pid, 0) still succeeds on it.
    const holderCommand = `${process.execPath} --conditions=development --import tsx test/fixtures/launcherLockHolder.ts ${namespace}`;
    const shell = spawn('sh', ['-c', `${holderCommand} & echo "pid $!"; exec sleep 60`], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const shellExited = new Promise((resolve) => shell.once('exit', resolve));
    closers.push(async () => {
      shell.kill('SIGKILL');
      await shellExited;
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      shell.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('held')) resolve();
      });
      shell.once('exit', () => reject(new Error(`the holder exited: ${output}`)));
    });
    const holderPid = Number(/pid (\d+)/.exec(output)![1]);
    closers.push(() => {
      try {
        process.kill(holderPid, 'SIGKILL');
      } catch {
        // gone
      }
    });
    expect(runningInstance(namespace)?.pid).toBe(holderPid);
    await expect(claimNamespace(namespace, {})).rejects.toThrow(`Platform namespace "${namespace}" is already running on this machine (launcher pid ${holderPid}`);

    process.kill(holderPid, 'SIGKILL');
    // Dead but not reaped: the pid still "exists".
    for (let i = 0; i < 100 && !/^State:\s+Z/m.test(readFileSync(`/proc/${holderPid}/status`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(() => process.kill(holderPid, 0)).not.toThrow();
    // The leader shows Z as soon as it exits; its other threads (libuv's) close the shared descriptors a moment later, and
    // with them the socket: the lock is gone once the kernel has torn the process down, however long it stays unreaped.
    for (let i = 0; i < 100 && runningInstance(namespace) !== undefined; i++) await new Promise((r) => setTimeout(r, 50));
    expect(runningInstance(namespace)).toBeUndefined();
    const release = await claimNamespace(namespace, {});
    closers.push(release);
    expect(JSON.parse(readFileSync(instanceFile(namespace), 'utf8')).pid).toBe(process.pid);
  });
});
