import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in Lambda bundles (infra/bundling.ts): Lambda puts the function
 * role's credentials in the environment, which is where the default chain looks first, so the environment provider
 * is the whole chain there. Same export the SDK clients import.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
