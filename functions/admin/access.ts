import type { Access } from '#shared/tenancy/index.ts';
import type { adminRouteTable } from './routes.ts';

const viewer: Access = { role: 'viewer' };
const developer: Access = { role: 'developer' };
const admin: Access = { role: 'admin' };
const operator: Access = { role: 'operator' };

/**
 * Who may call each management route (docs/reference/access.md): the operator's admin key may call every one; a
 * project key or portal session acts on its own project only, as far as its role goes. `viewer` reads; `developer`
 * also runs the project's integrations, webhooks, bots and knowledge, its API token, sandbox sends and
 * suppressions; `admin` also its channels, keys, portal sessions and settings. Credits and limits are the
 * operator's alone, as a route or as a field. A route added to the table without a rule here does not compile.
 */
export const adminRouteAccess: { readonly [K in keyof typeof adminRouteTable]: Access | 'anyone' } = {
  // Projects
  createProject: operator,
  listProjects: viewer,
  getProject: viewer,
  updateProject: { role: 'admin', operatorFields: ['monthlyBotCredits', 'limits'] },
  apiTokenState: viewer,
  issueApiToken: developer,
  revokeApiToken: developer,
  botCredits: viewer,
  grantBotCredits: operator,
  botCreditUsage: viewer,
  // Channels
  createChannel: { role: 'admin', operatorFields: ['credits'] },
  listChannels: viewer,
  getChannel: viewer,
  updateChannel: { role: 'admin', operatorFields: ['credits'] },
  deleteChannel: admin,
  addCredits: operator,
  outbox: viewer,
  listScheduledMessages: viewer,
  // Canceling a scheduled message changes what the channel sends, as a send would: a developer's act.
  cancelScheduledMessage: developer,
  listBatches: viewer,
  getBatch: viewer,
  listSuppressions: viewer,
  getSuppression: viewer,
  deleteSuppression: developer,
  getChannelConversation: viewer,
  listChannelMessages: viewer,
  simulateInbound: developer,
  simulateStatus: developer,
  reportEvent: developer,
  // Integrations and webhooks
  createIntegration: developer,
  listIntegrations: viewer,
  getIntegration: viewer,
  patchIntegration: developer,
  deleteIntegration: developer,
  rotateToken: developer,
  rotateSecret: developer,
  sendTestEvent: developer,
  listDeliveries: viewer,
  retryDelivery: developer,
  recoverDeliveries: developer,
  webhookHealth: viewer,
  // Bots and knowledge
  createBot: developer,
  listBots: viewer,
  getBot: viewer,
  patchBot: developer,
  deleteBot: developer,
  listKnowledge: viewer,
  uploadKnowledge: developer,
  issueKnowledgeUploadUrl: developer,
  deleteKnowledge: developer,
  // Access: keys and portal sessions are the project admin's; the audit log is read by admins and developers.
  createKey: admin,
  listKeys: admin,
  revokeKey: admin,
  createPortalSession: admin,
  endPortalSessions: admin,
  listAudit: developer,
  whoAmI: viewer,
  exchangePortalCode: 'anyone',
};
