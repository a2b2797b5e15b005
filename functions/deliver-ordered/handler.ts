import { deliverHandler } from '#functions/_wiring/deliver.ts';

/**
 * FIFO `deliveriesOrdered` queue (webhooks with `ordering: "conversation"`) → one HTTP attempt per
 * job; one conversation's jobs one after another, the others at once. A job waiting for its retry stays postponed in
 * place, holding back its conversation only.
 */
export const handler = await deliverHandler('deliver-ordered');
