import { readFileSync } from 'node:fs';
import { mainTable } from '#shared/contract/table.ts';

/**
 * Throttles armed at run time, so a test can watch a running service meet AWS's per-partition limits: DynamoDB
 * answers `ProvisionedThroughputExceededException` for the keys a rule names, and SQS answers `RequestThrottled` to a
 * send to a queue a rule names. The stand-ins answer exactly what AWS would, over the wire, so the SDK's own retries
 * run first, as they do on AWS.
 *
 * `THROTTLES=<rules>`, or `THROTTLES_FILE=<path>` naming a file that holds them (read at each call: a running
 * service is armed and disarmed by writing the file). Rules are comma- or newline-separated, each
 * `<where>:<pattern>[:read|write]`:
 * - `table:RL#*`: calls on table items whose partition key matches (`*` matches any run of characters);
 *   `table:PRJ#p1/MSG#*` narrows it to sort keys matching the part after `/`;
 * - `gsi1:CREDIT_SWEEP*`: queries of that index under a matching partition key, and table writes that change an item
 *   the index holds under one (a throttled index throttles the table's writes, as on AWS);
 * - `queue:switchboard-events`: SendMessage and SendMessageBatch to queues whose name matches.
 * `read` or `write` narrows a DynamoDB rule to those calls. A batch with some keys throttled gets them back as
 * unprocessed; with all of them, the exception.
 *
 * Only the local runner's stand-ins know of it: nothing deployed reads these variables (a test checks the template).
 */
export const THROTTLES_ENV = 'THROTTLES';
export const THROTTLES_FILE_ENV = 'THROTTLES_FILE';

export interface ThrottleRule {
  /** `table`, an index name, or `queue`. */
  where: string;
  pattern: RegExp;
  /** Table rules only: the sort keys it throttles (all when absent). */
  sortPattern?: RegExp;
  ops: 'read' | 'write' | 'all';
}

let parsedFrom: string | undefined;
let parsed: ThrottleRule[] = [];

/** The rules armed now (none when neither variable is set, or the file is missing or empty). */
export function armedThrottles(env: NodeJS.ProcessEnv = process.env): ThrottleRule[] {
  const file = env[THROTTLES_FILE_ENV];
  const text = file ? readArmed(file) : env[THROTTLES_ENV];
  if (!text) return [];
  if (text !== parsedFrom) {
    parsed = parseThrottles(text);
    parsedFrom = text;
  }
  return parsed;
}

function readArmed(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Parses a rule list; a malformed rule is an error (a test that arms nothing by mistake would prove nothing). */
export function parseThrottles(text: string): ThrottleRule[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([A-Za-z0-9_-]+):(.+?)(?::(read|write))?$/.exec(entry);
      if (!match) throw new Error(`throttle rule "${entry}": expected <where>:<pattern>[:read|write]`);
      const [, where, glob, ops] = match as unknown as [string, string, string, 'read' | 'write' | undefined];
      const known = ['table', 'queue', ...mainTable.globalSecondaryIndexes.map((g) => g.indexName)];
      if (!known.includes(where)) throw new Error(`throttle rule "${entry}": where must be one of ${known.join(', ')}`);
      const [partition, sort] = where === 'table' ? splitSortKey(glob) : [glob, undefined];
      return {
        where,
        pattern: globPattern(partition),
        ...(sort === undefined ? {} : { sortPattern: globPattern(sort) }),
        ops: ops ?? 'all',
      };
    });
}

export function splitSortKey(glob: string): [string, string | undefined] {
  const at = glob.indexOf('/');
  return at < 0 ? [glob, undefined] : [glob.slice(0, at), glob.slice(at + 1)];
}

export function globPattern(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 's');
}

// ---------------------------------------------------------------------------------------------------------------
