/**
 * Native lifecycle request generation (spec 7.8, 7.14, 7.15, 7.16, 7.18), pure: launch
 * transitions, release with terminal/nonlaunch evidence, per-Claim finish, delivery
 * barriers, Issue/PR observation refresh, reconciliation decisions, deployments and
 * replacement admission. Every builder's output is validated again by replay when the
 * checked publisher applies it.
 */
export { barrierPlan, completedMember, defaultDescriptor, deliveryFailureCommitOf, settlingOperation } from './barrier.ts';
export type { BarrierInput, BarrierPlan, TerminalRun } from './barrier.ts';
export { contractDigest, deploymentPlan, installedProfile } from './deploy.ts';
export type { DeploymentInput, DeploymentPlan } from './deploy.ts';
export {
  bindingStatus, boundTransition, dispatchGroup, rejectedTransition, startMarker, uncertainTransition, unresolvedTransition,
} from './dispatch.ts';
export { DeliveryReceiptsSchema, effectContract, receiptId, RECEIPTS_SCHEMA, verifyDelivery } from './effects.ts';
export type { DeliveryReceipts, EffectContract, Verification } from './effects.ts';
export { groupEvidence } from './evidence.ts';
export type { EvidenceFacts } from './evidence.ts';
export { boundRunId, finishPlan, workerActor } from './finish.ts';
export type { FinishInput, FinishPlan } from './finish.ts';
export { dispatchNextWithObservations } from './grant.ts';
export { dispatchHistory } from './history.ts';
export type { DispatchEvent, DispatchHistory } from './history.ts';
export * as requestIds from './ids.ts';
export { launchState, launchView, launchViewAcross } from './launch-state.ts';
export type { CompactedLaunchEvents, LaunchState, LaunchView, MemberView } from './launch-state.ts';
export { candidateGates, gateState, isRedundant, observationOperation, refreshBudget } from './observations.ts';
export type { GateFacts, GateTarget, ReadStatus } from './observations.ts';
export { decideReserved, grantingRun, grantingRunView, RESERVED_NEXT_ACTION } from './prelaunch.ts';
export type { GrantingRun, GrantingRunView, ReservedDecision } from './prelaunch.ts';
export { budgetExhausted, decideUnbound, possibleLaunches, UNRESOLVED_NEXT_ACTION, unresolvedCode } from './reconcile.ts';
export type { Budget, Candidate, UnboundDecision } from './reconcile.ts';
export { cancelClaims, checkPrelaunch, exhaustionRequest, releaseRequest } from './release.ts';
export { replacementRequest } from './replacement.ts';
export type { ReplacementInput } from './replacement.ts';
export { runBinding, runMismatches, titleNames, titleToken, workflowFile } from './run-identity.ts';
export type { NativeRunFacts, RunMismatch } from './run-identity.ts';
