#!/usr/bin/env node
// The `fairway` bin runs the compiled CLI under dist/ (built by `npm ci`/`npm pack`
// through the `prepare` script, and rebuilt here only when a source changed),
// so no TypeScript is transpiled at run time.
import { pathToFileURL } from 'node:url';
import { entry } from './build.js';

// A closed pipe (`fairway ... | head`) ends output quietly instead of crashing.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const { main } = await import(pathToFileURL(await entry()).href);
process.exitCode = await main(process.argv.slice(2));
