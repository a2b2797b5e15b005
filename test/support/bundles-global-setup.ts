import { localDeployment } from '#local/bundles/local-deployment.ts';
import { deploymentSettings } from '#local/bundles/bundles-mode.ts';

/**
 * The `bundles` project's global setup: bundles and synthesizes the local deployments once (or finds them in the
 * cache) before any file starts a service, so no file's `beforeAll` pays the first build.
 */
export default function prepareLocalDeployments(): void {
  localDeployment(deploymentSettings({}));
  localDeployment(deploymentSettings({ MODEL_PROVIDER: 'openai' }));
}
