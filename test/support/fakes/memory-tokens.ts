import type { TokenGrant, TokenStore } from '#shared/auth/index.ts';

/** The token store in memory: grants by token hash. `fail` makes every read throw, as an unreachable store would. */
export class MemoryTokens implements TokenStore {
  readonly grants = new Map<string, TokenGrant>();
  fail = false;
  async find(tokenHash: string) {
    if (this.fail) throw new Error('ECONNREFUSED');
    return this.grants.get(tokenHash);
  }
  async put(tokenHash: string, grant: TokenGrant) {
    this.grants.set(tokenHash, grant);
  }
  async delete(tokenHash: string) {
    this.grants.delete(tokenHash);
  }
  async setMonthlyBotCredits(tokenHash: string, monthlyBotCredits: number) {
    const grant = this.grants.get(tokenHash);
    if (grant?.kind === 'projectApi') this.grants.set(tokenHash, { ...grant, monthlyBotCredits });
  }
}
