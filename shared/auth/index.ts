/** Auth: who a request is (project API tokens, custom tokens), the token store port, and the product's token kinds. */
export {
  type ApiTokenFailure,
  type ApiTokenResult,
  makeAuthenticateApiToken,
  makeAuthenticateCustomToken,
  makeAuthenticatePollerToken,
} from './authenticate.ts';
export type {
  CustomTokenGrant,
  PollerTokenGrant,
  ProjectApiTokenGrant,
  TokenGrant,
  TokenStore,
} from './token-store.ts';
export { generateToken, isWellFormedToken, TOKEN_PREFIX, type TokenKind } from './tokens.ts';
