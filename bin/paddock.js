#!/usr/bin/env node
// Runs the TypeScript sources directly: Node 24 strips the types, so there is no build step.
import '../src/cli/main.ts';
