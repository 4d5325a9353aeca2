// A TCP proxy between a client and a real redis-server that injects network faults on demand: it
// resets connections (an RST, as a crashed peer or a middlebox does), stalls them (nothing passes
// either way for a while, as on a congested or partitioned link), drops the next reply, holds the
// replies that follow one, or swallows the next command that matches a pattern (a SUBSCRIBE, say) —
// each rule bounded in time.
//
// Loopback only, on a free port. Commands are matched on the raw bytes the client writes (RESP
// carries command names as plain text); a swallowed chunk is dropped whole, so match commands a
// connection sends on their own (a subscriber's SUBSCRIBE). Every timer is unref'd and cleared by
// close(), which ends every connection it made.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback';

export interface ProxiedConnection {
  readonly id: number;
  /** Every command name (upper case) this client sent through the proxy, in order, at most the last 200. */
  readonly commands: readonly string[];
  /** Ends both sides with an RST. */
  reset(): void;
  /** Holds everything, both ways, for `ms` (then lets it through, in order). */
  stall(ms: number): void;
  /** Drops the next chunk Redis sends to this client (the reply, or replies, it carries). */
  dropNextReply(): void;
  /**
   * Puts `bytes` in front of the next chunk Redis sends to this client: a middlebox that garbles a
   * reply (`$999999999\r\n`: a bulk reply whose end never comes, read for ever by the client).
   */
  garbleNextReply(bytes: string): void;
  /**
   * Lets Redis's next reply line matching `pattern` through, then stalls the connection for `ms`:
   * the replies after it in the same chunk, and everything after, come that much later (a segment
   * retransmitted, say). One line of RESP: an error or status reply.
   */
  holdAfterReply(pattern: RegExp, ms: number): void;
}

export interface SwallowRule {
  /** What a client's chunk must match to be swallowed. */
  readonly pattern: RegExp;
  /** The rule lapses after this long, swallowed or not. */
  readonly withinMs: number;
  /** How many chunks it swallows before it lapses (default 1). */
  readonly times?: number;
  /** Resets the connection this long after it swallowed (undefined: leaves it open, silent). */
  readonly resetAfterMs?: number;
}

export interface FaultProxy {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The connections open now. */
  connections(): readonly ProxiedConnection[];
  /** Connections whose client sent a command matching `pattern` (e.g. /^SUBSCRIBE$/). */
  carrying(pattern: RegExp): readonly ProxiedConnection[];
  /** Swallows, on any connection, the next client chunk matching the rule's pattern. */
  swallowNext(rule: SwallowRule): void;
  /** Stalls the next connection a client opens for `ms` from its start (its handshake held, as on a loaded machine). */
  stallNextConnection(ms: number): void;
  /**
   * A partition for `ms`: every open connection stalls, and so does every one opened meanwhile (a
   * client that reconnects gets no further). resetAll() ends it.
   */
  partition(ms: number): void;
  /** How many chunks the rules swallowed so far. */
  readonly swallowed: number;
  /** Resets every open connection; returns how many. */
  resetAll(): number;
  close(): Promise<void>;
}

const MAX_COMMANDS = 200;

/** Command names in a RESP chunk: each array's first bulk string (`*N\r\n$len\r\nNAME\r\n`). */
function commandNames(chunk: Buffer): string[] {
  const names: string[] = [];
  const text = chunk.toString('latin1');
  const pattern = /\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g;
  for (let match = pattern.exec(text); match && names.length < 1_000; match = pattern.exec(text))
    names.push(match[1]!.toUpperCase());
  return names;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const open = new Set<Connection>();
  const timers = new Set<NodeJS.Timeout>();
  const rules: Array<SwallowRule & { until: number; left: number }> = [];
  let nextId = 1;
  let swallowed = 0;
  let stallNextMs = 0;
  let partitionedUntil = 0;
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  class Connection implements ProxiedConnection {
    readonly id = nextId++;
    readonly commands: string[] = [];
    private stalledUntil = 0;
    private readonly held: Array<{ to: Socket; chunk: Buffer }> = [];
    private dropReply = false;
    private garble: string | undefined;
    private holdAfter: { pattern: RegExp; ms: number } | undefined;
    private closed = false;

    constructor(
      private readonly client: Socket,
      private readonly server: Socket,
    ) {
      client.on('data', (chunk: Buffer) => this.fromClient(chunk));
      server.on('data', (chunk: Buffer) => this.fromServer(chunk));
      for (const socket of [client, server]) {
        socket.on('error', () => this.end());
        socket.on('close', () => this.end());
      }
    }

    reset(): void {
      if (this.closed) return;
      this.client.resetAndDestroy();
      this.server.destroy();
      this.end();
    }

    stall(ms: number): void {
      this.stalledUntil = Math.max(this.stalledUntil, Date.now() + ms);
      later(ms, () => this.flush());
    }

    dropNextReply(): void {
      this.dropReply = true;
    }

    garbleNextReply(bytes: string): void {
      this.garble = bytes;
    }

    holdAfterReply(pattern: RegExp, ms: number): void {
      this.holdAfter = { pattern, ms };
    }

    private fromClient(chunk: Buffer): void {
      const names = commandNames(chunk);
      this.commands.push(...names);
      if (this.commands.length > MAX_COMMANDS) this.commands.splice(0, this.commands.length - MAX_COMMANDS);
      const now = Date.now();
      const rule = rules.find(
        (candidate) =>
          candidate.until > now && candidate.left > 0 && names.some((name) => candidate.pattern.test(name)),
      );
      if (rule) {
        rule.left--;
        swallowed++;
        if (rule.resetAfterMs !== undefined) later(rule.resetAfterMs, () => this.reset());
        return;
      }
      this.forward(this.server, chunk);
    }

    private fromServer(chunk: Buffer): void {
      if (this.dropReply) {
        this.dropReply = false;
        return;
      }
      if (this.garble !== undefined) {
        const bytes = this.garble;
        this.garble = undefined;
        this.forward(this.client, Buffer.concat([Buffer.from(bytes, 'latin1'), chunk]));
        return;
      }
      const hold = this.holdAfter;
      const match = hold?.pattern.exec(chunk.toString('latin1'));
      if (hold && match) {
        const crlf = chunk.indexOf('\r\n', match.index, 'latin1');
        const lineEnd = crlf < 0 ? chunk.length : crlf + 2;
        const { ms } = hold;
        this.holdAfter = undefined;
        this.forward(this.client, chunk.subarray(0, lineEnd));
        this.stall(ms);
        if (lineEnd < chunk.length) this.forward(this.client, chunk.subarray(lineEnd));
        return;
      }
      this.forward(this.client, chunk);
    }

    private forward(to: Socket, chunk: Buffer): void {
      if (Date.now() < this.stalledUntil || this.held.length > 0) this.held.push({ to, chunk });
      else if (!to.destroyed) to.write(chunk);
    }

    private flush(): void {
      // A timer can fire a millisecond before Date.now() reaches the stall's end (timers run on the
      // loop's monotonic clock): look again then, or the connection would stay stalled for good.
      const left = this.stalledUntil - Date.now();
      if (left > 0) {
        later(left, () => this.flush());
        return;
      }
      for (const { to, chunk } of this.held.splice(0)) if (!to.destroyed) to.write(chunk);
    }

    private end(): void {
      if (this.closed) return;
      this.closed = true;
      open.delete(this);
      this.client.destroy();
      this.server.destroy();
    }
  }

  const server: Server = createServer({ noDelay: true }, (client) => {
    const upstream = createConnection({ host: target.host, port: target.port, noDelay: true });
    client.pause();
    upstream.once('connect', () => client.resume());
    const connection = new Connection(client, upstream);
    open.add(connection);
    if (stallNextMs > 0) connection.stall(stallNextMs);
    stallNextMs = 0;
    if (Date.now() < partitionedUntil) connection.stall(partitionedUntil - Date.now());
  });
  const { port, url } = await listenOnLoopback(server);
  return {
    port,
    url,
    connections: () => [...open],
    carrying: (pattern) => [...open].filter((connection) => connection.commands.some((name) => pattern.test(name))),
    swallowNext: (rule) => rules.push({ ...rule, until: Date.now() + rule.withinMs, left: rule.times ?? 1 }),
    stallNextConnection: (ms) => {
      stallNextMs = ms;
    },
    partition: (ms) => {
      partitionedUntil = Date.now() + ms;
      for (const connection of open) connection.stall(ms);
    },
    get swallowed() {
      return swallowed;
    },
    resetAll: () => {
      partitionedUntil = 0;
      const connections = [...open];
      connections.forEach((connection) => connection.reset());
      return connections.length;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const connection of [...open]) connection.reset();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
