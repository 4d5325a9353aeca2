// The listeners a store adds to a client's events, taken off together when the store closes.
//
// A client passed to configure() outlives the stores made on it: a test's beforeEach, a module that
// configures again, each makes a new store on the same client. A listener left behind keeps the
// closed store (and all it holds) reachable for the client's life, and past ten of one event Node
// warns with the client as the warning's `emitter` — its options, password included, in whatever
// logs the warning. So each listener goes on through here, and close() takes back exactly these.

/** What a client is as an event emitter: ioredis's, node-redis's (Node EventEmitters both). */
export interface ClientEvents {
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
}

export class ClientListeners {
  private readonly added: Array<[event: string, listener: (...args: never[]) => void]> = [];

  constructor(private readonly client: ClientEvents) {}

  on(event: string, listener: (...args: never[]) => void): void {
    this.client.on(event, listener);
    this.added.push([event, listener]);
  }

  /** Takes off every listener added here; idempotent. */
  removeAll(): void {
    for (const [event, listener] of this.added.splice(0)) this.client.removeListener(event, listener);
  }
}
