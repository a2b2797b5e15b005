import { groupSetup } from '../global-service.ts';

/** The `strict` group: a deployment that allows no private destinations, as on AWS. */
export default groupSetup({
  env: { WEBHOOK_ALLOW_PRIVATE: '0', SMTP_ALLOWED_PORTS: '25,465,587,2525', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2' },
});
