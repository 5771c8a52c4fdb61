/**
 * The trusted origin of a logical request (spec 7.7 `actor`; 7.13 "Derive it from
 * authenticated workflow/job/operator context"): its role and principal and, inside GitHub
 * Actions, its own workflow run. Every surface builds its Actor here. The queue repository
 * is not the surface's to say: the publisher fills in the ledger's (`PublishingActor`).
 * A worker's Actor is not built from flags but read from its dispatch group
 * (`workerActor` in engine/lifecycle/finish.ts).
 */
import type { Actor } from '../../engine/schema/index.ts';
import type { PublishingActor } from './publisher.ts';

/** The workflow run an actor names (lib/github/context.ts `ActionsRun` inside GitHub Actions). */
export interface ActorRun {
  runId: string;
  runAttempt: number;
  /** Workflow file path of the run; null when the job context does not name it. */
  workflow: string | null;
}

/** The Actor of `role` for `principal`, naming its own run when it has one. */
export function actorOf(role: Actor['role'], principal: string, run: ActorRun | null = null): PublishingActor {
  if (run === null) return { role, principal };
  return { role, principal, ...(run.workflow === null ? {} : { workflow: run.workflow }), run_id: run.runId, run_attempt: run.runAttempt };
}
