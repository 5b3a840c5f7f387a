import { en } from './en.js';
import type { Messages } from './messages.js';

export type { Messages, FailureKind, FormErrorKind } from './messages.js';

/** The shipped languages; add one by adding its table here. */
export const locales: Record<string, Messages> = { en };
export const defaultLocale = 'en';

/** A language the pages speak: the session's choice if shipped, else the browser's first shipped one, else English. */
export function pickLocale(chosen: string | null | undefined, acceptLanguage: string | undefined): string {
  if (chosen && Object.hasOwn(locales, chosen)) return chosen;
  for (const part of (acceptLanguage ?? '').split(',').slice(0, 20)) {
    const tag = part.split(';')[0]?.trim().toLowerCase().split('-')[0];
    if (tag && Object.hasOwn(locales, tag)) return tag;
  }
  return defaultLocale;
}

export const messagesFor = (locale: string): Messages => locales[locale] ?? en;
