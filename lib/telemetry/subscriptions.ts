import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** Subscribes handlers by channel name and undoes them all at once (a gateway's close). */
export function createSubscriptions() {
  const undo: (() => void)[] = [];
  return {
    on<E>(name: string, handler: (event: E) => void): void {
      const listener = (message: unknown) => handler(message as E);
      subscribe(name, listener);
      undo.push(() => unsubscribe(name, listener));
    },
    close(): void {
      for (const off of undo.splice(0)) off();
    },
  };
}
