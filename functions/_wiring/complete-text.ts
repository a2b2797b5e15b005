import { DynamoBotStore } from '#shared/bots/index.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { modelRouterFromSettings } from '#shared/model-providers/index.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import { completionSettings } from '#shared/completion/index.ts';
import type { MeteredPlatform } from '#shared/kernel/platform.ts';
import { knowledgeSearchFromConfig } from './knowledge.ts';
import { meteredCreditLedger } from './metered.ts';

export async function completeTextFromConfig(
  platform: Pick<MeteredPlatform, 'cfg' | 'logger' | 'metrics' | 'table'>,
): Promise<ReturnType<typeof makeCompleteText>> {
  const { cfg, table, logger, metrics } = platform;
  const bots = new DynamoBotStore(table);
  return makeCompleteText({
    bots,
    knowledge: knowledgeSearchFromConfig(cfg, { bots, logger }),
    credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
    models: await modelRouterFromSettings(platform),
    maxOutputTokens: completionSettings.read().BOT_MAX_OUTPUT_TOKENS,
    log: logger,
  });
}
