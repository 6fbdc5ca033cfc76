#!/usr/bin/env -S node --max-semi-space-size=2
// Runs the TypeScript sources directly: Node 24 strips the types, so there is no build step.
// A 2 MiB young generation keeps a busy server's memory ~70 MiB lower at no measured cost (bench/results.md).
import '../src/cli/main.ts';
