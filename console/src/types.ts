import type { z } from 'zod';
import { CHANNEL_TYPES as CHANNEL_TYPE_VALUES } from '../../shared/messaging/channel.ts';
import type * as S from '../../shared/openapi/schemas.ts';

// The console's view of the management API: the answer schemas of the OpenAPI document (types only, no runtime).
export type Project = z.infer<typeof S.project>;
export type ProjectPage = z.infer<typeof S.projectPage>;
export type ApiTokenState = z.infer<typeof S.apiTokenState>;
export type BotCredits = z.infer<typeof S.botCredits>;
export type Channel = z.infer<typeof S.channel>;
export type Integration = z.infer<typeof S.integration>;
export type CreatedIntegration = z.infer<typeof S.createdIntegration>;
export type Delivery = z.infer<typeof S.delivery>;
export type DeliveryPage = z.infer<typeof S.deliveryPage>;
export type Bot = z.infer<typeof S.bot>;
export type KnowledgeFile = z.infer<typeof S.knowledgeFile>;
export type KnowledgeFilePage = z.infer<typeof S.knowledgeFilePage>;
export type ChannelType = Channel['type'];

const CHANNEL_LABELS: Record<ChannelType, string> = { whatsapp: 'WhatsApp', email: 'Email', sms: 'SMS' };

/** The channel types the API accepts, in its order, with their labels. */
export const CHANNEL_TYPES: { value: ChannelType; label: string }[] = CHANNEL_TYPE_VALUES.map((value) => ({
  value,
  label: CHANNEL_LABELS[value],
}));

export type WebhookHealth = z.infer<typeof S.webhookHealth>;
export type BotCreditUsage = z.infer<typeof S.botCreditUsage>;
