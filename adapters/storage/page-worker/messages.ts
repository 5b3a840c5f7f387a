import type { PageRequest, PageText, ValueView } from '../../../lib/storage/page-reader.js';

/** What the gateway's thread sends: one page to read, and when the answer stops being wanted. */
export interface ReadMessage {
  id: number;
  /** `Date.now()` past which the page is not read (the caller has given up). */
  deadline: number;
  request: PageRequest;
}

/** Loads a view ahead of the reads that use it (they run in process until it is loaded). */
export interface LoadMessage {
  load: ValueView;
}

/** A page as it crosses: its bytes' buffer is moved with the message, and arrives as a plain `Uint8Array`. */
export type PageOnWire = Omit<PageText, 'json'> & { json: Uint8Array };

/** What the worker sends back: that it runs, that a view is loaded (`module#name`), a page or a read's failure. */
export type ReplyMessage =
  { ready: true } | { loaded: string } | { id: number; page: PageOnWire } | { id: number; error: string };

/** How the two sides name a view. */
export const viewKey = (view: ValueView) => `${view.module}#${view.name}`;
