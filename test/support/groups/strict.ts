import { groupSetup } from '../global-service.ts';

/** A poller's requests a second in this group: low, so a test's burst meets it however slow the machine. */
export const POLL_RATE_LIMIT = 2;

/** The `strict` group: a deployment that allows no private destinations, as on AWS; a poller's rate kept low. */
export default groupSetup({
  env: {
    WEBHOOK_ALLOW_PRIVATE: '0',
    SMTP_ALLOWED_PORTS: '25,465,587,2525',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    POLL_RATE_LIMIT_PER_SECOND: String(POLL_RATE_LIMIT),
  },
});
