/**
 * How long each function runs per invocation on AWS: stated assumptions, not measurements (what a function waits for
 * on AWS, a provider, a model, a receiver, is not on this machine). Unit counts come from the wire
 * (./recorded-units.json); these durations turn invocations into concurrency (infra/capacity-plan.ts) and
 * GB-seconds (infra/cost.ts). A queue worker's figure is per batch, full as batches are under load.
 */
export interface AssumedDuration {
  ms: number;
  why: string;
}

export const assumedDurations: Record<string, AssumedDuration> = {
  send: { ms: 300, why: 'one provider API call (Twilio, Meta: ~200-300 ms)' },
  'legacy-send': { ms: 300, why: 'as send' },
  'inbound-twilio': { ms: 40, why: 'a signature check, one read, one enqueue' },
  'inbound-whatsapp': { ms: 40, why: 'as inbound-twilio' },
  inbound: { ms: 200, why: 'a batch of 10 reports: reads and conditional writes per report, in parallel' },
  'inbound-ordered': { ms: 200, why: 'a batch of 10 reports, each contact’s in turn, contacts in parallel' },
  fanout: { ms: 60, why: 'a batch of 10 events: one webhook Query per project, one enqueue per batch' },
  deliver: {
    ms: 400,
    why: 'a batch of deliveries in parallel (10, or more where the plan grows it): the slowest receiver (~300 ms), then the writes',
  },
  'deliver-ordered': { ms: 400, why: 'as deliver' },
  admin: { ms: 60, why: 'reads and writes of the management API' },
  'message-status': { ms: 30, why: 'one read' },
  conversations: { ms: 40, why: 'one Query' },
  health: { ms: 50, why: 'token, rate limit, balance; probes cached per instance' },
  models: { ms: 30, why: 'token, rate limit' },
  search: { ms: 60, why: 'the bot index cached in the instance' },
  completion: { ms: 2_000, why: 'waits for the model (~2 s for a short answer)' },
  'chat-completions': { ms: 2_000, why: 'as completion' },
  responses: { ms: 2_000, why: 'as completion' },
  embeddings: { ms: 300, why: 'waits for the embeddings model' },
  extract: { ms: 1_000, why: 'a ~5-page text-layer PDF' },
  'extract-uploads': { ms: 50, why: 'signs an upload form' },
  ingest: { ms: 3_000, why: 'a batch of files of one bot: read, chunk, index, one segment written' },
  'credit-sweeper': { ms: 100, why: 'one index Query, nothing open' },
  'event-sweeper': { ms: 100, why: 'one index Query, nothing marked' },
  'send-batch': { ms: 800, why: '1,000 items: a parallel BatchGetItem, ~80 BatchWriteItems and ~100 enqueues' },
  outbound: { ms: 1_500, why: 'a batch of 10 sends: up to 2 s waiting for their turns at the pace, provider calls' },
  'due-sweeper': { ms: 100, why: 'a few Queries of the coming minutes, usually empty' },
  'events-poll': { ms: 60, why: "a read of its token and of its rules, a few Queries of the project's event log" },
  console: { ms: 20, why: 'a page from the bundle (the portal page reads its project first)' },
  fallback: { ms: 20, why: 'answers 404/405 from the route table' },
};

export function durationOf(fn: string): AssumedDuration {
  const d = assumedDurations[fn];
  if (!d) throw new Error(`infra/durations.ts: no assumed duration for function ${fn}`);
  return d;
}
