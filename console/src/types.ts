import type { Schemas } from '@switchboard/sdk';

// The console's view of the management API: the official client's types (sdk/), generated from the same OpenAPI
// document the API reference shows. Types only: nothing of the SDK is bundled.
export type Project = Schemas['Project'];
export type ProjectPage = Schemas['ProjectPage'];
export type ApiTokenState = Schemas['ApiTokenState'];
export type BotCredits = Schemas['BotCredits'];
export type Channel = Schemas['Channel'];
export type ScheduledMessagePage = Schemas['ScheduledMessagePage'];
export type BatchPage = Schemas['BatchPage'];
export type BatchProgress = Schemas['BatchProgress'];
export type Integration = Schemas['Integration'];
export type CreatedIntegration = Schemas['CreatedIntegration'];
export type Delivery = Schemas['Delivery'];
export type DeliveryPage = Schemas['DeliveryPage'];
export type Bot = Schemas['Bot'];
export type KnowledgeFile = Schemas['KnowledgeFile'];
export type KnowledgeFilePage = Schemas['KnowledgeFilePage'];
export type ChannelType = Channel['type'];
export type WebhookHealth = Schemas['WebhookHealth'];
export type BotCreditUsage = Schemas['BotCreditUsage'];
export type Conversation = Schemas['Conversation'];
export type ConversationMessage = Schemas['ConversationMessage'];
export type ConversationMessagePage = Schemas['ConversationMessagePage'];
export type Suppression = Schemas['Suppression'];
export type ManagementKey = Schemas['ManagementKey'];
export type ManagementKeyCreated = Schemas['ManagementKeyCreated'];
export type PortalLink = Schemas['PortalLink'];
export type AuditEntry = Schemas['AuditEntry'];
export type AuditPage = Schemas['AuditPage'];

// Every channel type of the API, by the type's own union: a new type does not compile until it has a label.
const CHANNEL_LABELS: Record<ChannelType, string> = { whatsapp: 'WhatsApp', email: 'Email', sms: 'SMS' };

/** The channel types the API accepts, with their labels. */
export const CHANNEL_TYPES: { value: ChannelType; label: string }[] = (
  Object.entries(CHANNEL_LABELS) as [ChannelType, string][]
).map(([value, label]) => ({ value, label }));
