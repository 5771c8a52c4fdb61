#!/usr/bin/env node
// The `fairway` bin runs the TypeScript sources directly through tsx's loader,
// so `npx fairway` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
// A closed pipe (`fairway ... | head`) ends output quietly instead of crashing.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
