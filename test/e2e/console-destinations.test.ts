import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalAws } from '#local/emulators.ts';
import { type ConsoleBrowser, chromium, openConsoleBrowser, signIn } from '#test/console/browser.ts';
import { explainFailures } from '#test/console/explain-failures.ts';
import { ACCESSIBILITY_PROBLEMS } from '#test/console/in-page.ts';
import { localAwsClients, newQueue, receiveMessages } from '#test/support/local-aws.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

// The console creates a webhook delivering into an SQS queue of the customer's account, and tests it.
describeNeeding(chromium, 'console: webhook destinations', () => {
  let svc: ServiceClient;
  let ui: ConsoleBrowser;
  let page: Page;
  let aws: ReturnType<typeof localAwsClients>;

  // A failing step prints what the page showed and what the service answered meanwhile.
  explainFailures(() => ui);
  beforeAll(async () => {
    svc = await sharedService();
    const info = (await (await fetch(`${svc.baseUrl}/local/aws`)).json()) as LocalAws;
    aws = localAwsClients(info);
    ui = await openConsoleBrowser();
    page = ui.page;
    await signIn(page, svc.baseUrl, svc.adminKey);
  });
  afterAll(async () => {
    aws?.destroy();
    await ui?.close();
    await svc?.close();
  });

  it('creates an SQS destination with its role, and its test event reaches the queue', async () => {
    const { projectId } = await svc.newProject({ companyId: 9 });
    const queue = await newQueue(aws.sqs, `console-${Date.now().toString(36)}`);
    const roleArn = 'arn:aws:iam::123456789012:role/switchboard-delivery';
    await page.goto(`${svc.baseUrl}/console/#/projects/${projectId}/integrations/new`);
    await page.getByLabel('Deliver to').selectOption('sqs');
    expect(await page.getByLabel('URL', { exact: true }).count()).toBe(0);
    await page.getByLabel('Queue URL').fill(queue.url);
    await page.getByLabel('Role ARN').fill(roleArn);
    expect(await page.evaluate(ACCESSIBILITY_PROBLEMS)).toEqual([]);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const integrationId = /integrations\/([^/?]+)$/.exec(page.url())![1]!;
    const got = await svc.admin('GET', `/projects/${projectId}/integrations/${integrationId}`);
    expect(got.body).toMatchObject({ url: null, destination: { type: 'sqs', queueUrl: queue.url, roleArn } });
    await page.getByRole('button', { name: 'Send test event' }).click();
    const [message] = await receiveMessages(aws.sqs, queue.url, 1);
    expect(JSON.parse(message!.Body!)).toMatchObject({ type: 'webhook.test', projectId });
  });
});
