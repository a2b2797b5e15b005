import { readFileSync } from 'node:fs';
import type { QueueKey } from '#shared/contract/queues.ts';

/**
 * What each request type costs, as recorded on the wire by `npx tsx bench/capacity.ts --write` (the capacity model,
 * bench/capacity/): per request, the read and write units on each key class of the table and its indexes, SQS
 * requests per queue and per FIFO message group, S3 requests, function invocations. infra/cost.ts prices these and
 * infra/capacity-plan.ts sizes the deployment from them; no unit count is written by hand.
 */

export interface KeyClassUnits {
  /** Write and read units per request on this class (refused conditional writes included). */
  wcu: number;
  rcu: number;
  writes: number;
  reads: number;
  /** Bytes added to what the table or index keeps for good, and bytes × days of what expires (TTL). */
  storedBytes: number;
  expiringByteDays: number;
  /** `table` or an index name. */
  target: string;
  keyClass: string;
  /** Distinct partitions of the class one request touches (a send writes its own message's and its project's). */
  partitions: number;
}

export interface QueueUnits {
  queue: QueueKey;
  op: string;
  /** API requests, as SQS bills them (each 64 KB of a request's payload is one). */
  requests: number;
  messages: number;
  /** Made by the event source mapping on the function's behalf (receive, delete): fewer per message in full batches. */
  byPoller: boolean;
}

export interface GroupUnits {
  queue: QueueKey;
  groupClass: string;
  /** API calls touching one group (a send, a receive or a delete of its messages). */
  calls: number;
  byPoller: boolean;
}

export interface S3Units {
  bucket: string;
  op: string;
  requests: number;
  bytes: number;
}

export interface FunctionUnits {
  fn: string;
  /** The API method it was invoked through (HTTP functions). */
  method?: string;
  invocations: number;
  /** Records handed to it (queue workers: messages; others: one per invocation). */
  records: number;
}

export interface RequestTypeUnits {
  name: string;
  /** What one is (a request, an event fanned out, a delivery attempt). */
  per: string;
  controlPlane: boolean;
  /** How many were recorded (both projects). */
  samples: number;
  dynamo: KeyClassUnits[];
  sqs: QueueUnits[];
  fifo: GroupUnits[];
  s3: S3Units[];
  functions: FunctionUnits[];
}

export interface RecordedUnits {
  /** How the file was made (run it again after a change to what a request does). */
  command: string;
  recordedAt: string;
  /** The table as the synthesized template defined it when recorded (a different one makes the file stale). */
  table: unknown;
  /** Requests of each type per project in the recorded workload. */
  perType: number;
  requestTypes: RequestTypeUnits[];
  /**
   * Key classes spread over shards (`gsi3 OUTBOX#<shard>`): how many shards, as many as one reader (a sweep, a
   * listing) was seen to read, or writers to write.
   */
  shards: Record<string, number>;
}

export const RECORDED_UNITS_FILE = new URL('./recorded-units.json', import.meta.url);

export function recordedUnits(): RecordedUnits {
  return JSON.parse(readFileSync(RECORDED_UNITS_FILE, 'utf8')) as RecordedUnits;
}

/** One request type's units (throws if the recording has none of that name: the file is stale). */
export function unitsOf(units: RecordedUnits, name: string): RequestTypeUnits {
  const found = units.requestTypes.find((t) => t.name === name);
  if (!found)
    throw new Error(`infra/recorded-units.json has no request type "${name}": run npx tsx bench/capacity.ts --write`);
  return found;
}
