#!/usr/bin/env node
// The `fairway` bin runs the TypeScript sources directly through tsx's loader,
// so `npx fairway` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
