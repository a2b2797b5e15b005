import { failpoint } from '../kernel/failpoints.ts';
import { endpointOf, parkedJob, unansweredOutcome } from './delivery-steps.ts';
import { destinationEndpoint, type DestinationSender } from './destination-sender.ts';
import type { EndpointGate } from './endpoint-gate.ts';
import { type DeliveryJob, orderKeyOfRecord } from './model.ts';
import type { AttemptOutcome, QueuedJob, WebhookSender } from './ports.ts';
import { standardWebhookHeaders } from './signature.ts';
import type { TargetSnapshot } from './target-snapshot.ts';

export interface AttemptDeps {
  gate: EndpointGate;
  sender: WebhookSender;
  /** Queues, topics, buses, streams and buckets in customers' AWS accounts; without it such webhooks fail unsent. */
  destinations?: DestinationSender;
  userAgent: string;
  now: () => number;
  random: () => number;
}

/** An attempt made (when it started, what came back), or the job parked for later without an attempt. */
export type GatedAttempt = { at: number; outcome: AttemptOutcome } | { parked: QueuedJob };

/**
 * One delivery attempt: asks the endpoint gate, then POSTs the body with the Standard Webhooks headers (or puts it
 * into the customer's AWS destination). A refused job is parked (put back on the queue) unless it has been parked
 * long enough, in which case the attempt counts as timed out unsent.
 */
export function makeAttemptThroughGate(deps: AttemptDeps) {
  return async (
    job: DeliveryJob,
    target: TargetSnapshot,
    body: string,
    attemptNumber: number,
  ): Promise<GatedAttempt> => {
    const endpoint = target.aws ? destinationEndpoint(target.aws.destination) : endpointOf(target.url);
    const decision = await deps.gate.enter(endpoint);
    const at = deps.now();
    if (!decision.admitted) {
      const parked = parkedJob(job, decision, attemptNumber, deps.random);
      return parked ? { parked } : { at, outcome: unansweredOutcome(endpoint) };
    }
    let outcome: AttemptOutcome | undefined;
    try {
      outcome = target.aws
        ? await sendToAws(deps, job, target, body, at)
        : await deps.sender.send({ url: target.url, headers: requestHeaders(deps, job, target, body, at), body });
      failpoint('after-attempt');
      return { at, outcome };
    } finally {
      // Released before the write: the destination's place is free as soon as it answered.
      decision.release(outcome?.kind ?? 'network');
    }
  };
}

/** The same envelope and signatures, into the customer's AWS account. */
function sendToAws(
  deps: Pick<AttemptDeps, 'destinations'>,
  job: DeliveryJob,
  target: TargetSnapshot,
  body: string,
  at: number,
) {
  if (!deps.destinations || !target.aws) {
    return Promise.resolve<AttemptOutcome>({ kind: 'network', durationMs: 0, error: 'AWS destinations unavailable' });
  }
  return deps.destinations.send({
    ...target.aws,
    projectId: job.projectId,
    deliveryId: job.deliveryId,
    eventId: job.eventId,
    orderKey: job.orderKey ?? orderKeyOfRecord({ body }),
    body,
    headers: signatureHeaders(job, target, body, at),
  });
}

function requestHeaders(
  deps: Pick<AttemptDeps, 'userAgent'>,
  job: DeliveryJob,
  target: TargetSnapshot,
  body: string,
  at: number,
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': deps.userAgent,
    ...signatureHeaders(job, target, body, at),
  };
  if (target.bearerToken) headers.authorization = `Bearer ${target.bearerToken}`;
  return headers;
}

/** `webhook-id` (the event id on every attempt), `webhook-timestamp` and the signatures under every live secret. */
function signatureHeaders(job: DeliveryJob, target: TargetSnapshot, body: string, at: number) {
  return standardWebhookHeaders(
    { secrets: target.signingSecrets, keys: target.signingKeys ?? [] },
    job.eventId,
    Math.floor(at / 1000),
    body,
  );
}
