// What a wire tells its users, kept: the subscribers of its events (`Wire.on`, each with its unsubscribe; the events
// are wire.ts's WireEventMap), and the one handler that answers the server's questions (`Wire.handleInput`: one at a
// time, a second is a programming error, never a silent replacement). The code that hears the server emits here.
import type { InputHandler, Unsubscribe, WireEvent, WireEventMap } from "./wire.js";

/** Any subscriber, as kept (each is called with its own event's arguments). */
type Subscriber = { fn: (...args: unknown[]) => unknown };

/** The subscribers of a wire's events, and its input handler. */
export class WireHub {
  private readonly subscribers = new Map<WireEvent, Set<Subscriber>>();
  private handler?: InputHandler;

  on<K extends WireEvent>(event: K, fn: WireEventMap[K]): Unsubscribe {
    let set = this.subscribers.get(event);
    if (!set) this.subscribers.set(event, (set = new Set()));
    const entry = { fn } as Subscriber; // its own entry: the same function subscribed twice is told twice
    set.add(entry);
    return () => void set.delete(entry);
  }

  /** Sets the input handler; throws while another is set (whoever set it must let go of it first). */
  handleInput(handler: InputHandler): Unsubscribe {
    if (this.handler)
      throw new Error("internal: this wire's questions already have a handler (one at a time: let go of the first)");
    this.handler = handler;
    return () => {
      if (this.handler === handler) this.handler = undefined;
    };
  }

  /** The input handler, if one is set. */
  get input(): InputHandler | undefined {
    return this.handler;
  }

  /** Whether anyone listens to `event`. */
  has(event: WireEvent): boolean {
    return (this.subscribers.get(event)?.size ?? 0) > 0;
  }

  /** Tells every subscriber of `event`, in the order they subscribed. */
  emit<K extends WireEvent>(event: K, ...args: Parameters<WireEventMap[K]>): void {
    const set = this.subscribers.get(event);
    if (set) for (const { fn } of set) fn(...args);
  }

  /** Tells every subscriber of `event` and waits for them all (`taskMoved`: the token is saved before going on). */
  async settle<K extends WireEvent>(event: K, ...args: Parameters<WireEventMap[K]>): Promise<void> {
    const set = this.subscribers.get(event);
    if (set) await Promise.all([...set].map(({ fn }) => fn(...args)));
  }
}

/** A wire's `on` and `handleInput`, kept in its hub: the wire classes extend it. */
export class Subscribable {
  /** The wire's subscribers and input handler: what hears the server tells them here. */
  readonly hub = new WireHub();

  on<K extends WireEvent>(event: K, listener: WireEventMap[K]): Unsubscribe {
    return this.hub.on(event, listener);
  }

  handleInput(handler: InputHandler): Unsubscribe {
    return this.hub.handleInput(handler);
  }
}
