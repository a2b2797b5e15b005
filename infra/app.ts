import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './settings.ts';
import { SwitchboardStack } from './stack.ts';

/**
 * `npx cdk synth` / `npx cdk deploy`: the Switchboard stack, checked by cdk-nag's AwsSolutions pack (a finding that
 * is not acknowledged with a reason stops the synth). Settings: the `switchboard` context key (cdk.json).
 */
const app = new App();
new SwitchboardStack(app, app.node.tryGetContext('switchboard:stackName') ?? 'Switchboard', {
  settings: settingsFromContext(app.node.tryGetContext('switchboard')),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
