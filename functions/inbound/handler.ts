import { inboundHandler } from '#functions/_wiring/inbound.ts';

/**
 * The unordered `inbound` queue → SES's receipt notifications forwarded to the ordered lane (one report per channel, in
 * the group of the mail's sender), and reports set aside from that lane worked here, each alone (partial batch
 * response); their conditional writes make a retry emit nothing twice.
 */
export const handler = await inboundHandler('inbound');
