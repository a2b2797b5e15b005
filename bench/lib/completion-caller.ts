import { dynamoDocumentClient } from '#shared/kernel/aws/clients.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { config } from '#shared/kernel/config.ts';
import { newId } from '#shared/kernel/ids.ts';
import type { RunningService } from '#local/service.ts';
import { adminApi } from './harness.ts';

/**
 * A project with an API token and a bot without knowledge, for the completion benchmarks. The bot is written straight
 * to the table (as the admin API would), so a benchmark can give the service and its anchor one each and they never
 * contend on the same items.
 */
export async function completionCaller(
  svc: RunningService,
  companyId: number,
): Promise<{ token: string; botId: string }> {
  const admin = adminApi(svc);
  const project = await admin('POST', '/projects', { companyId, name: 'bench', monthlyBotCredits: 1_000_000_000 });
  const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
  const botId = newId('bot');
  const at = new Date().toISOString();
  await new DynamoBotStore({ client: dynamoDocumentClient(config()), tableName: svc.emulators.tableName }).create({
    botId,
    projectId: project.projectId,
    name: 'Store assistant',
    instructions: "You are the store's assistant. Answer briefly.",
    createdAt: at,
    updatedAt: at,
    knowledge: { version: 0, segments: [] },
  });
  return { token, botId };
}
