export { inboundWiring } from '../inbound-twilio/wiring.ts';
