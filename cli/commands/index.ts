/**
 * The command registry. Each module registers its own subcommands; adding a
 * command is one line here.
 */
import type { CommandModule } from '../context.ts';
import { registerDemo } from './demo.ts';
import { registerReplay } from './replay.ts';
import { registerVerify } from './verify.ts';

export const COMMANDS: CommandModule[] = [
  registerVerify,
  registerReplay,
  registerDemo,
];
