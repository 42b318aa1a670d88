/**
 * Ports before processes: the launcher checks every port it is about to hand
 * a service, so a port another process holds is one sentence naming it and
 * its holder, not a service dying at boot while a stranger answers the
 * readiness poll in its place.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { services, type PortKind, type Ports } from './services.js';

/** Resolves true when `port` can be bound on every interface (as the services bind it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The low end of the kernel's ephemeral range: outgoing connections take their local port from it. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 49_152;
  } catch {
    return 49_152; // not Linux: the IANA range
  }
}

/**
 * A free port below the kernel's ephemeral range. A port the kernel picks
 * (listen on 0) comes from that range, where any outgoing connection (a
 * Postgres pool, a NATS client) may take it before the service it was meant
 * for binds it: a boot failing with EADDRINUSE. Below the range only a
 * listener can take it, and every listener of ours is checked here.
 */
export async function anyFreePort(): Promise<number> {
  const floor = 10_000;
  const ceiling = ephemeralLow() - 1;
  for (let attempt = 0; ceiling > floor && attempt < 200; attempt += 1) {
    const port = floor + Math.floor(Math.random() * (ceiling - floor));
    if (await portIsFree(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A free port not in `taken`, which it joins: ports handed out together are never handed out twice. */
export async function freePortOutside(taken: Set<number>): Promise<number> {
  let chosen: number;
  do chosen = await anyFreePort();
  while (taken.has(chosen));
  taken.add(chosen);
  return chosen;
}

/** Free ports for every service of the list (the e2e suite and the benchmarks run beside a developer's `npm start`). */
export async function freePorts(): Promise<Ports> {
  const taken = new Set<number>();
  const ports: Ports = {};
  for (const entry of services) {
    ports[entry.name] = {};
    for (const kind of Object.keys(entry.ports) as PortKind[]) ports[entry.name]![kind] = await freePortOutside(taken);
  }
  return ports;
}

/** Socket inodes listening on `port`, from /proc/net/tcp and tcp6 (Linux; empty elsewhere). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields.length > 9 && fields[1]!.endsWith(`:${hexPort}`) && fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/**
 * Who listens on `port`: `pid 1234 (node src/main.ts)` when /proc shows it
 * (a process of the same user), else `another process`.
 */
export function portHolder(port: number): string {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return 'another process';
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return 'another process';
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) {
        let command = '';
        try {
          command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
        } catch {
          // gone meanwhile
        }
        return command ? `pid ${pid} (${command.length > 120 ? `${command.slice(0, 117)}...` : command})` : `pid ${pid}`;
      }
    }
  }
  return 'another process';
}

/** Thrown when a port the launcher may not move is taken; its message is the one line to print. */
export class PortTaken extends Error {
  override name = 'PortTaken';
}

/**
 * Checks every port of `ports`. A taken port that `movable` allows (an
 * internal one: nobody outside the platform dials it) is replaced by a free
 * one, so a second copy on the same machine runs beside the first; a taken
 * public port (PORT, ADMIN_PORT: someone chose it) fails with PortTaken
 * naming the port and its holder.
 */
export async function claimPorts(ports: Ports, movable: (service: string, kind: PortKind) => boolean): Promise<{ ports: Ports; moved: string[] }> {
  const claimed: Ports = {};
  const moved: string[] = [];
  const taken = new Set<number>();
  for (const entry of services) {
    const own = ports[entry.name] ?? {};
    claimed[entry.name] = {};
    for (const [kind, port] of Object.entries(own) as Array<[PortKind, number]>) {
      let chosen = port;
      if (port !== 0 && (taken.has(port) || !(await portIsFree(port)))) {
        if (!movable(entry.name, kind)) {
          throw new PortTaken(`Port ${port} (${entry.name} ${kind}) is in use by ${portHolder(port)}; stop it or choose another port.`);
        }
        chosen = await freePortOutside(taken);
        moved.push(`${entry.name} ${kind} ${port} → ${chosen}`);
      }
      taken.add(chosen);
      claimed[entry.name]![kind] = chosen;
    }
  }
  return { ports: claimed, moved };
}
