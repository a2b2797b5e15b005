/**
 * What the STS, EventBridge, Kinesis and SES stand-ins add to the runner's start: loading their module and listening
 * (their services and database load on first use), measured alone because a whole start on this shared machine
 * varies by seconds. Also the first call to each (its lazy load), for the record.
 *
 * Run: npx tsx bench/local-aws-start.ts [--rounds 20]
 */
import { parseArgs } from 'node:util';
import { machine, median } from './lib/harness.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);

let started = performance.now();
const { startAwsStandIns } = await import('#local/aws/stand-ins.ts');
const importMs = performance.now() - started;

const listenMs: number[] = [];
const cpuMs: number[] = [];
for (let round = 0; round < rounds; round++) {
  const cpu = process.cpuUsage();
  started = performance.now();
  const standIns = await startAwsStandIns({ region: 'us-east-1' });
  listenMs.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  cpuMs.push((used.user + used.system) / 1000);
  await standIns.stop();
}

const standIns = await startAwsStandIns({ region: 'us-east-1' });
const firstCall: Record<string, number> = {};
const signed = (service: string) => ({
  authorization: `AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
});
const calls: [string, string, RequestInit][] = [
  [
    'sts',
    standIns.endpoints.sts,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed('sts') },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    },
  ],
  [
    'eventbridge',
    standIns.endpoints.eventbridge,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSEvents.ListEventBuses',
        ...signed('events'),
      },
      body: '{}',
    },
  ],
  [
    'kinesis',
    standIns.endpoints.kinesis,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'Kinesis_20131202.ListStreams',
        ...signed('kinesis'),
      },
      body: '{}',
    },
  ],
  ['ses', `${standIns.endpoints.ses}/v2/email/account`, { headers: signed('ses') }],
];
for (const [name, url, init] of calls) {
  started = performance.now();
  const response = await fetch(url, init);
  await response.text();
  firstCall[name] = performance.now() - started;
}
await standIns.stop();

console.log(machine());
console.log(`module import (first): ${importMs.toFixed(1)} ms`);
console.log(
  `start (listen x4): median ${median(listenMs).toFixed(2)} ms wall, ${median(cpuMs).toFixed(2)} ms CPU over ${rounds} rounds`,
);
console.log(
  `first call (service and database load): ${Object.entries(firstCall)
    .map(([k, v]) => `${k} ${v.toFixed(0)} ms`)
    .join(', ')}`,
);
