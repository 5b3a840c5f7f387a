import { CatalogError } from '../../lib/providers/index.js';

/** The problems a CatalogError lists; fails when `fn` throws anything else or nothing. */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof CatalogError) return error.problems;
    throw error;
  }
  throw new Error('expected a CatalogError');
}
