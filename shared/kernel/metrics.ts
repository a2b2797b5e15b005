/**
 * The service's own metrics: one namespace, a fixed catalogue of names, a few low-cardinality dimensions (outcome,
 * provider, engine; never a project, token or URL). Use cases and wiring record through the {@link Metrics} port;
 * `shared/kernel/adapters/` turns it into CloudWatch EMF log lines, and the dashboard (`infra/dashboard.ts`)
 * reads the same names.
 */
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
  /** Bots API requests refused by the per-token rate limit (429). */
  rateLimitRejections: 'RateLimitRejections',
} as const;

export type MetricName = (typeof metricNames)[keyof typeof metricNames];

/** Dimension values are a closed, small set each (an outcome, a provider name): never an id. */
export type MetricDimensions = Readonly<Record<string, string>>;

/** Where metrics go. Values recorded during one invocation are published when it ends. */
export interface Metrics {
  /** Adds `value` (1 by default) to a count. */
  count(name: MetricName, value?: number, dimensions?: MetricDimensions): void;
  /** Records one duration in milliseconds. */
  milliseconds(name: MetricName, value: number, dimensions?: MetricDimensions): void;
}

/** Metrics that a function publishes at the end of each invocation (`shared/http/invocation.ts`). */
export interface InvocationMetrics extends Metrics {
  /** Writes out what this invocation recorded, if anything. */
  publish(): void;
}

/** Records nothing: for use cases wired without metrics (tests, tools). */
export const noMetrics: Metrics = { count: () => {}, milliseconds: () => {} };
