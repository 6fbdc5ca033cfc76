#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=8 --max-old-space-size=256
// Runs the TypeScript sources directly: Node 24 strips the types, so there is no build step.
// An 8 MiB young generation (semi-space): measured against 2, 4 and 16 MiB in bench/young_generation.ts
// (issue 38), list pages cost about 8 % less CPU than at 2 MiB, whose scavenges promoted every page
// in flight, at the same memory peak. The connection ceiling follows the heap's limit (issue 42,
// src/server/connections.ts): 10,053 connections under a 256 MiB old generation. Two malloc
// arenas and fixed mmap and trim thresholds keep glibc from holding freed memory in an arena per
// thread (docs/decisions.md).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

// Node's compile cache keeps the stripped and compiled modules between starts, so a restarted
// server does not load the TypeScript stripper again (about 30 MiB of resident memory). It lives
// in the checkout's own node_modules, writable only by whoever can change the sources, never in a
// shared temporary directory. When it cannot be used, Node carries on without it.
enableCompileCache(join(import.meta.dirname, '..', 'node_modules', '.cache', 'paddock-compile'));
await import('../src/cli/main.ts');
