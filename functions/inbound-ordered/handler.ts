import { inboundHandler } from '#functions/_wiring/inbound.ts';

/**
 * The FIFO `inboundOrdered` queue (every provider report, one message group per channel and contact) → normalised,
 * deduplicated, forward-only events, one contact's in the order their reports were acknowledged.
 */
export const handler = await inboundHandler('inbound-ordered');
