/**
 * The command registry. Each module registers its own subcommands; adding a
 * command is one line here.
 */
import type { CommandModule } from '../context.ts';
import { registerAdmin } from './admin.ts';
import { registerCompact } from './compact.ts';
import { registerConsole } from './console.ts';
import { registerDemo } from './demo.ts';
import { registerDeploy } from './deploy.ts';
import { registerDispatch } from './dispatch.ts';
import { registerDoctor } from './doctor.ts';
import { registerEvidence } from './evidence.ts';
import { registerExplain } from './explain.ts';
import { registerInspect } from './inspect.ts';
import { registerLaunch } from './launch.ts';
import { registerMcp } from './mcp.ts';
import { registerObserve } from './observe.ts';
import { registerProcessIntents } from './process-intents.ts';
import { registerReconcile } from './reconcile.ts';
import { registerReplay } from './replay.ts';
import { registerResult } from './result.ts';
import { registerSimulate } from './simulate.ts';
import { registerSnapshot } from './snapshot.ts';
import { registerSubmit } from './submit.ts';
import { registerTui } from './tui.ts';
import { registerVerify } from './verify.ts';

export const COMMANDS: CommandModule[] = [
  registerVerify,
  registerTui,
  registerReplay,
  registerInspect,
  registerSubmit,
  registerDispatch,
  registerLaunch,
  registerObserve,
  registerReconcile,
  registerEvidence,
  registerResult,
  registerDeploy,
  registerAdmin,
  registerCompact,
  registerExplain,
  registerSimulate,
  registerSnapshot,
  registerMcp,
  registerProcessIntents,
  registerDemo,
  registerConsole,
  registerDoctor,
];
