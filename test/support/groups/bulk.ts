import { groupSetup } from '../global-service.ts';

/** The `bulk` group: files that send thousands of Bots API requests with one token (the rate limit out of the way). */
export default groupSetup({ env: { BOT_RATE_LIMIT_PER_MINUTE: '100000' } });
