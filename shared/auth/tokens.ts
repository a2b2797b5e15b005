import { hasTokenShape, randomToken } from '../kernel/tokens.ts';

/** The product's token kinds and their prefixes: project API tokens and custom (send) tokens. */
export const TOKEN_PREFIX = { projectApi: 'sbk_', custom: 'sbc_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

export function generateToken(kind: TokenKind): string {
  return randomToken(TOKEN_PREFIX[kind]);
}

export function isWellFormedToken(kind: TokenKind, token: string): boolean {
  return hasTokenShape(TOKEN_PREFIX[kind], token);
}
