import { setV8FlagUnlessNamed } from './v8-flag.js';

/**
 * Whether a V8 of this version (`process.versions.v8`) has the flag and leaves it off: 13.6
 * (Node 24) through 14.7 (14.6 is Node 26's). V8 14.8 made the behaviour its default and removed
 * the flag; 12.4 (Node 22) and 11.3 (Node 20) do not know it, and V8 prints an error on stderr
 * for a flag it does not know.
 */
export function takesExternalMemoryFlag(v8Version: string): boolean {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  const version = major * 1000 + minor;
  return version >= 13_006 && version < 14_008;
}

/**
 * Has V8 count the memory Buffers hold as part of the heap's global limit, which grows with the
 * heap, rather than start a full collection each time that memory rises 64 MB above where it
 * stood after the last one.
 *
 * Why a proxy process needs it: every body chunk a proxy reads is a Buffer outside the heap
 * (Node's HTTP parser copies each into one), and most are garbage by the next scavenge. Under
 * V8's historic accounting the chunks waiting for that scavenge count as much as live ones: a
 * process streaming 1 MiB bodies on 32 connections crosses the 64 MB step every few dozen calls.
 * On Node 24 that was a full collection several times a second whatever the heap's growth factor
 * (`steadyHeapGrowth`), and 1.04–1.18 times a bare forwarder's CPU a call; with the flag, none, and
 * 0.6–0.8 times (bench/README.md, session 30). V8 14.8 made this its default.
 *
 * The cost is memory: the global limit is what the heap and the Buffers held after the last full
 * collection, times the heap's growth factor (four, with `steadyHeapGrowth`'s default, where V8 14.x
 * caps the Buffers' part at 1.3), so dead Buffers may wait longer for their collection. V8's hard
 * bound still forces one once Buffers hold half the old generation's maximum size
 * (`--max-old-space-size`) more than after the last.
 *
 * Set where the running V8 takes the flag (`takesExternalMemoryFlag`); elsewhere nothing. The
 * flag named on Node's command line, either way and in any spelling (`setV8FlagUnlessNamed`), is
 * the operator's choice and is left alone. Returns whether it set the flag.
 */
export function accountExternalMemoryInHeapLimit(): boolean {
  return (
    takesExternalMemoryFlag(process.versions.v8) && setV8FlagUnlessNamed('external-memory-accounted-in-global-limit')
  );
}
