#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=2 --max-old-space-size=256
// Runs the TypeScript sources directly: Node 24 strips the types, so there is no build step.
// A 2 MiB young generation keeps a busy server's memory lower (8 MiB: list pages about 6 % cheaper,
// but the full benchmark's peak 206 MiB against 162), and a 256 MiB old generation makes V8 grow its
// heap in small steps (ten 16 MiB views: +25 MiB, not up to +50 MiB); the live heap stays far below
// it (bench/results.md, docs/decisions.md). Two malloc arenas and fixed mmap and trim thresholds
// keep glibc from holding freed memory in an arena per thread (about 13 MiB less at the peak).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

// Node's compile cache keeps the stripped and compiled modules between starts, so a restarted
// server does not load the TypeScript stripper again (about 30 MiB of resident memory). It lives
// in the checkout's own node_modules, writable only by whoever can change the sources, never in a
// shared temporary directory. When it cannot be used, Node carries on without it.
enableCompileCache(join(import.meta.dirname, '..', 'node_modules', '.cache', 'paddock-compile'));
await import('../src/cli/main.ts');
