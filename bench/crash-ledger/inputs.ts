/**
 * The inputs the crash ledger drives, all at once: each kind has `concurrency` senders, each sender sends one input
 * at a time and sends it again until it is acknowledged (as providers and careful clients do), across kills.
 */
import { apiInputs } from './inputs-api.ts';
import { channelInputs } from './inputs-channels.ts';
import type { Tally } from './tally.ts';
import type { LedgerOptions } from './types.ts';
import type { World } from './world.ts';

/** Kinds driven only when `only` names them (the SQS destination's: a second project, its own run). */
const VOLUME_KINDS = ['batch', 'scheduled', 'sqsDestination'];

/** Starts every sender; each resolves once `tally.stopping` is set and its input in hand is done. */
export function startInputs(world: World, tally: Tally, options: LedgerOptions): Promise<void>[] {
  const api = apiInputs(world, tally);
  const channels = channelInputs(world, tally);
  const drivers: Record<string, () => Promise<void>> = {
    send: api.send,
    batch: api.batch,
    scheduled: api.scheduled,
    status: channels.status,
    twilioInbound: channels.twilioInbound,
    whatsappInbound: channels.whatsappInbound,
    mail: channels.mail,
    report: api.report,
    sqsDestination: api.sqsDestination,
  };
  return (
    Object.entries(drivers)
      // Batch items and scheduled sends (a minute ahead at least) only when named: the short run of `npm test` drains
      // for less than a scheduled send waits.
      .filter(([name]) => (options.only ? options.only.includes(name) : !VOLUME_KINDS.includes(name)))
      .flatMap(([, drive]) =>
        Array.from({ length: options.concurrency }, async () => {
          while (!tally.stopping) await drive();
        }),
      )
  );
}
