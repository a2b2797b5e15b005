/** Webhooks: fan-out of events to webhooks, delivery attempts, retries, pacing, recovery and health. */
export {
  type AttemptFold,
  type AttemptHour,
  type CountedAttempt,
  foldAttempts,
  hourLabel,
  LATENCY_BUCKET_EDGES_MS,
  LATENCY_BUCKETS,
  latencyBucket,
  medianFromBuckets,
  type WebhookAttemptStats,
} from './attempt-stats.ts';
export {
  type DeliverDeps,
  DISABLE_AFTER_FAILING_MS,
  makeDeliver,
  ORDERED_GROUP_BUDGET_MS,
  type ReceivedMessage,
} from './deliver.ts';
export {
  attemptNumberOf,
  type AttemptVerdict,
  attemptWrite,
  decideAttempt,
  disabledWebhookWrite,
  DONE,
  endpointOf,
  expiredPayloadWrite,
  MAX_DELAY_SECONDS,
  MAX_PARKINGS,
  MAX_POSTPONE_SECONDS,
  nextAttemptAtOf,
  nextStepAfter,
  orderedReceive,
  orderedStep,
  type Outcome,
  pacedBackJob,
  PARKED_JOB_BASE_DELAY_SECONDS,
  parkedJob,
  parseDeliveryJob,
  secondsUntilDue,
  skipsDisabledWebhook,
  unansweredOutcome,
} from './delivery-steps.ts';
export { EndpointGate, type EndpointGateOptions, type GateDecision } from './endpoint-gate.ts';
export {
  applicableWebhooks,
  type EventSideEffects,
  type FanoutDeps,
  makeFanout,
  type ReceivedEvent,
} from './fanout.ts';
export {
  HEALTH_HOURS,
  type HealthHour,
  makeWebhookHealthReport,
  type WebhookHealthReport,
  type WebhookHealthReportDeps,
} from './health-report.ts';
export { makeWebhookAdmin, type WebhookAdmin, type WebhookAdminDeps } from './manage-deliveries.ts';
export {
  DELIVERY_STATUSES,
  type DeliveryAttempt,
  deliveryIdFor,
  type DeliveryJob,
  deliveryJobFor,
  deliveryJobSchema,
  type DeliveryOf,
  type DeliveryRecord,
  type DeliveryStatus,
  deliveryView,
  orderKeyOfRecord,
} from './model.ts';
export {
  isNoticeEmailJob,
  makeNoticeEmails,
  type NoticeEmail,
  type NoticeEmailJob,
  noticeEmailOf,
  type NoticeEmailQueue,
  type NoticeEmailsDeps,
  type NoticeMailer,
} from './notice-emails.ts';
export {
  DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS,
  makeNoticeEmailSender,
  NOTICE_EMAIL_CLAIM_MS,
  type NoticeEmailClaim,
  type NoticeEmailLog,
  type NoticeEmailSender,
  type NoticeEmailSenderDeps,
  type ReceivedNoticeEmail,
} from './send-notice-email.ts';
export {
  DEFAULT_FAILING_AFTER,
  type DisabledReason,
  makeWebhookNotices,
  type WebhookNotices,
  type WebhookNoticesDeps,
} from './notices.ts';
export {
  ADMISSION_PATIENCE_MS,
  IN_PROCESS_WAIT_MS,
  LIMIT_CACHE_MS,
  makePacing,
  type Pacing,
  type PacingDecision,
  type PacingDeps,
  START_JITTER_ALLOWANCE_MS,
  startSpacingMs,
  type WebhookPacer,
} from './pacing.ts';
export type {
  AttemptOutcome,
  AttemptWrite,
  DeliveryQueue,
  DeliveryStore,
  HealthFold,
  PostponedMessage,
  QueuedJob,
  WebhookDirectory,
  WebhookHealthState,
  WebhookHealthStore,
  WebhookRequest,
  WebhookSender,
} from './ports.ts';
export {
  type FailedDeliveries,
  type FailedWindow,
  isRecoverMessage,
  makeRecoverFailedDeliveries,
  RECOVER_MAX_AGE_MS,
  type RecoverContinuation,
  type RecoverDeps,
  type RecoverFailedDeliveries,
  type RecoverMessage,
} from './recover.ts';
export {
  delayHonouringRetryAfter,
  MAX_RETRY_AFTER_MS,
  parseRetryAfterMs,
  RETRY_AFTER_STATUSES,
} from './retry-after.ts';
export {
  DEFAULT_RETRY_DELAYS_SECONDS,
  parseRetrySchedule,
  RETRY_JITTER,
  retryDelaySeconds,
  type RetrySchedule,
} from './retry-schedule.ts';
export {
  type SigningCredentials,
  signatureHeader,
  signingKey,
  signPayload,
  signPayloadEd25519,
  standardWebhookHeaders,
} from './signature.ts';
export { openSnapshot, sealSnapshot, snapshotOf, type TargetSnapshot } from './target-snapshot.ts';
export {
  type DestinationDelivery,
  destinationEndpoint,
  type DestinationSender,
} from './destination-sender.ts';
export { type WebhookSettings, webhookSettings } from './settings.ts';
export { type DestinationPlatform, wireDestinations } from './wiring.ts';
