import type pg from 'pg';

export interface Listener {
  /** Stops listening and returns the connection to the pool. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * LISTENs on `channel` (or several) with one pooled connection and calls `onNotify` for
 * each NOTIFY, which Postgres delivers only once the notifying transaction
 * commits. It is a wake-up signal, never the only one: a lost connection is
 * re-established on the next `ensure()`, and callers keep a slow poll as
 * the safety net.
 */
export function listenFor(
  pool: pg.Pool,
  /** One channel, or several heard on the same connection. */
  channel: string | readonly string[],
  onNotify: () => void,
  onError: (error: unknown) => void,
): Listener & { ensure(): Promise<void>; /** True while a connection listens: callers may then poll slowly. */ listening(): boolean } {
  const channels = typeof channel === 'string' ? [channel] : [...channel];
  let current: { connection: pg.PoolClient; release(destroy: boolean): void } | undefined;
  let stopped = false;

  // The connection goes back to the pool exactly once and without our
  // handlers: an error can arrive after stop() released it (the server
  // terminating it), and a pooled connection is later someone else's.
  function hold(connection: pg.PoolClient) {
    let released = false;
    const onConnectionError = () => {
      if (current?.connection === connection) current = undefined;
      release(true);
    };
    const release = (destroy: boolean) => {
      if (released) return;
      released = true;
      connection.off('notification', onNotify);
      connection.off('error', onConnectionError);
      connection.off('end', onConnectionError);
      // A pooled connection gets pg-pool's idle handler back; a destroyed
      // one may still report its dying socket, which must not crash us.
      if (destroy) connection.on('error', () => {});
      connection.release(destroy);
    };
    connection.on('notification', onNotify);
    connection.on('error', onConnectionError);
    // A connection the server closed without an error must not count as listening either: callers then poll slowly.
    connection.on('end', onConnectionError);
    return { connection, release };
  }

  return {
    listening: () => current !== undefined,
    async ensure() {
      if (current || stopped) return;
      try {
        const held = hold(await pool.connect());
        try {
          await held.connection.query(channels.map((name) => `LISTEN ${name}`).join('; '));
        } catch (error) {
          held.release(true);
          throw error;
        }
        if (stopped) return held.release(false);
        current = held;
      } catch (error) {
        onError(error);
      }
    },
    async stop() {
      stopped = true;
      const held = current;
      current = undefined;
      if (!held) return;
      await held.connection.query(channels.map((name) => `UNLISTEN ${name}`).join('; ')).catch(() => {});
      held.release(false);
    },
  };
}
