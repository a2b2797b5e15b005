/**
 * Auth: who a request is (project API tokens, custom tokens, poller tokens, the admin key), the token store and the
 * product's token kinds, and the function presets that put each kind of caller in front of a handler. The only way
 * into the area from outside it.
 */
export { DynamoTokenStore } from './adapters/dynamo-token-store.ts';
export { pollerTokenFunction } from './api/poller-token-auth.ts';
export {
  adminFunction,
  botsApiFunction,
  type CustomTokenAuthPorts,
  customTokenFunction,
} from './api/presets.ts';
export { makeAuthenticateCustomToken } from './authenticate.ts';
export type {
  CustomTokenGrant,
  PollerTokenGrant,
  ProjectApiTokenGrant,
  TokenGrant,
  TokenStore,
} from './token-store.ts';
export { generateToken } from './tokens.ts';
export { wireBotsApiAuth, wireCustomTokenAuth } from './wiring.ts';
