/** Reading what ./wire-counter.mjs wrote (one JSON file of counts per thread of a service): its calls by kind. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The service's requests so far, summed over its threads (`AmazonSQS ReceiveMessage`, `DynamoDB UpdateItem MSG`...). */
export function wireCounts(dir: string): Map<string, number> {
  const total = new Map<string, number>();
  for (const f of readdirSync(dir)) {
    let counts: Record<string, number>;
    try {
      counts = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    } catch {
      continue; // being written
    }
    for (const [k, n] of Object.entries(counts)) {
      const key = k.replace(/^(AmazonSQS|DynamoDB_\d+)\./, (_, service: string) => `${service.split('_')[0]} `).trim();
      total.set(key, (total.get(key) ?? 0) + n);
    }
  }
  return total;
}

/**
 * The calls made between two readings per `unit` (a message sent), most frequent first, with their totals per
 * service: what a drained message costs in round trips, by operation and by the kind of item it touched.
 */
export function callsPer(before: Map<string, number>, after: Map<string, number>, units: number): string[] {
  const rows = [...after]
    .map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const sum = (prefix: string) => rows.filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);
  const per = (n: number) => (n / Math.max(1, units)).toFixed(2).padStart(6);
  return [
    `  calls per message sent: DynamoDB ${per(sum('DynamoDB')).trim()}, SQS ${per(sum('AmazonSQS')).trim()}, ` +
      `other ${per(rows.filter(([k]) => !/^(DynamoDB|AmazonSQS)/.test(k)).reduce((a, [, n]) => a + n, 0)).trim()}`,
    ...rows.map(([k, n]) => `    ${per(n)}  ${k} (${n})`),
  ];
}
