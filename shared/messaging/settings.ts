import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** The mail submission and relay ports: what an SMTP channel may name on AWS by default. */
const MAIL_PORTS: readonly number[] = [25, 465, 587, 2525];

/** Sending through channels' providers. */
export const messagingSettings = declareSettings(
  {
    /**
     * Ports an SMTP channel may name: comma-separated, or `any`. Default: the mail submission and relay ports
     * (25, 465, 587, 2525) on AWS, any port locally (like WEBHOOK_ALLOW_PRIVATE).
     */
    SMTP_ALLOWED_PORTS: z.optional(
      z.string().check(
        z.regex(/^\s*(any|\d{1,5}(\s*,\s*\d{1,5})*)\s*$/, '"any" or comma-separated port numbers'),
        z.refine((v) => v.trim() === 'any' || v.split(',').every((p) => +p >= 1 && +p <= 65535), 'Ports are 1-65535'),
      ),
    ),
    /** Deadline of each call to a channel's provider (SMTP, Twilio, WhatsApp Cloud): 10 s unless set. */
    SEND_PROVIDER_TIMEOUT_MS: z._default(positiveInt(60_000), 10_000),
  },
  (raw, runtime) => ({ ...raw, smtpAllowedPorts: smtpAllowedPorts(raw.SMTP_ALLOWED_PORTS, runtime.local) }),
);

export type MessagingSettings = ReturnType<typeof messagingSettings.read>;

function smtpAllowedPorts(setting: string | undefined, local: boolean): readonly number[] | 'any' {
  if (setting === undefined) return local ? 'any' : MAIL_PORTS;
  if (setting.trim() === 'any') return 'any';
  return setting.split(',').map((port) => Number(port.trim()));
}
