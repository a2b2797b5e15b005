/**
 * The crash ledger (nothing accepted is lost, through kill -9 at any instant).
 *
 * Drives, all at once and at full speed, what reaches the service from outside: sends (custom token, a Twilio
 * double as the provider), Twilio status callbacks for those sends, signed Twilio inbound messages, signed WhatsApp
 * Cloud inbound messages, inbound mail over SMTP and channel back ends' reports (`POST /events` with an
 * Idempotency-Key). Kills the whole service with SIGKILL at random moments, restarts it on the same data, resends
 * every input that was not acknowledged (as providers and careful clients do), then drains and accounts for every
 * acknowledged input at the webhook:
 *
 *   acknowledged = delivered + failed (its automatic attempts used up; sent again by hand, then delivered) + lost;
 *   duplicates by the same webhook-id (allowed: receivers dedupe); one change under two event ids (never allowed).
 *
 * Webhooks with `ordering: "conversation"` (one per channel) take the `message.received` events: per contact, an input posted
 * after another was acknowledged must reach it after that one (bench/lib/order-ledger.ts counts those overtaken).
 *
 * A second project's webhook is an SQS destination (a queue of the runner's stand-in, its role assumed from the STS
 * stand-in): with `--only sqsDestination,…`, the reports posted to that project are accounted for by the messages
 * read from the queue.
 *
 * Exits 1 on any loss, any change with two ids, or any Twilio or WhatsApp message out of order. `npx tsx bench/crash-ledger.ts --kills 20 --seconds 6`; a short
 * run is part of `npm test` (test/e2e/crash-ledger.test.ts).
 */
import { parseArgs } from 'node:util';
import { formatLedger } from './crash-ledger/account.ts';
import { runCrashLedger } from './crash-ledger/run.ts';
import { MAIL_KIND } from './crash-ledger/types.ts';

export { formatLedger } from './crash-ledger/account.ts';
export { runCrashLedger } from './crash-ledger/run.ts';
export { type Ledger, type LedgerOptions, type LedgerRow, MAIL_KIND } from './crash-ledger/types.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string', default: '20' },
      seconds: { type: 'string', default: '6' },
      concurrency: { type: 'string', default: '4' },
      drain: { type: 'string', default: '100' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'log-level': { type: 'string' },
    },
  });
  const ledger = await runCrashLedger({
    kills: Number(values.kills),
    secondsBetweenKills: Number(values.seconds),
    concurrency: Number(values.concurrency),
    drainSeconds: Number(values.drain),
    ...(values.only ? { only: values.only.split(',') } : {}),
    keep: values.keep,
    ...(values['log-level'] ? { env: { POWERTOOLS_LOG_LEVEL: values['log-level'] } } : {}),
    log: (line) => console.log(line),
  });
  console.log(formatLedger(ledger));
  if (ledger.twoIdKeys.length) console.log(`two ids:\n${ledger.twoIdKeys.slice(0, 20).join('\n')}`);
  const bad =
    ledger.rows.some((r) => r.lost > 0 || r.twoIds > 0) ||
    ledger.providerTwice > 0 ||
    ledger.order.some((r) => r.outOfOrder > 0 && r.kind !== MAIL_KIND);
  process.exit(bad ? 1 : 0);
}
