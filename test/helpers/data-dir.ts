import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

/**
 * A folder for a store that a teardown closes. `t.testdir()` removes its folder before the
 * test's teardowns run, so a store still open (its threads still opening files) would be pulled
 * out from under it; this folder is removed by a teardown of its own, after those registered
 * later (tap runs teardowns last first).
 */
export function dataDir(t: Pick<Test, 'teardown'>): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
