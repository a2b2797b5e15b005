import type { Platform } from '../kernel/platform.ts';
import { DynamoBotStore } from './adapters/dynamo-bot-store.ts';
import { botHandlers } from './api/admin-routes.ts';
import { makeBotUseCases } from './manage-bots.ts';

/**
 * The bots' management API on the deployment's table: the use cases and what serves `botRoutes`. What bots need of
 * other areas comes in: whether a project exists (projects), and removing a deleted bot's knowledge (knowledge).
 */
export function wireBotAdmin(
  platform: Pick<Platform, 'table'>,
  deps: {
    projectExists(projectId: string): Promise<boolean>;
    purgeKnowledge(botId: string): Promise<void>;
  },
) {
  const bots = makeBotUseCases({ bots: new DynamoBotStore(platform.table), ...deps });
  return { bots, handlers: botHandlers(bots) };
}
