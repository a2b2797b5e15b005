/** The service's metric namespace and names: what the functions emit and the dashboard and alarms read. */
export const METRIC_NAMESPACE = 'Switchboard';

/** Every metric the service emits, with the dimensions it carries. */
export const metricNames = {
  /** One per webhook delivery attempt. Dimension `outcome`: success, http-error, timeout, network, refused. */
  webhookAttempts: 'WebhookAttempts',
  /** Milliseconds from sending a webhook attempt to its answer (or failure). Dimension `outcome`. */
  webhookAttemptLatency: 'WebhookAttemptLatency',
  /** Events read from the events queue and turned into delivery jobs. */
  eventsFannedOut: 'EventsFannedOut',
  /** One per message sent through a provider. Dimensions `provider` (sandbox, twilio...), `outcome` (sent, failed). */
  sends: 'Sends',
  /**
   * Reports (statuses, inbound messages) the providers sent back, counted by the inbound functions once queued.
   * Dimension `provider` (`twilio`, `whatsapp-cloud`; mail arrives through SES, not a function).
   */
  inboundReports: 'InboundReports',
  /** Bot credits taken, given back after a failure, and given back by the sweeper after a crash. */
  creditsCharged: 'CreditsCharged',
  creditsRefunded: 'CreditsRefunded',
  creditsSwept: 'CreditsSwept',
  /** Milliseconds a model call took, and its tokens. Dimensions `provider`, and `outcome` on the latency. */
  modelLatency: 'ModelLatency',
  modelInputTokens: 'ModelInputTokens',
  modelOutputTokens: 'ModelOutputTokens',
  /** Pages read by OCR. Dimensions `engine` (textract, tesseract), `outcome` (read, failed). */
  ocrPages: 'OcrPages',
  /** Knowledge segments found truncated or damaged in storage (each once per instance): searched around until merged. */
  knowledgeSegmentsUnreadable: 'KnowledgeSegmentsUnreadable',
  /** Bots API requests refused by the per-token rate limit (429). */
  rateLimitRejections: 'RateLimitRejections',
} as const;

export type MetricName = (typeof metricNames)[keyof typeof metricNames];
