import { it } from 'vitest';
import { chromium } from '#test/console/browser.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import {
  accessibility,
  apiTokenAndCredits,
  botsWithKnowledge,
  pageThroughKnowledgeFiles,
  phoneWidth,
  uploadLargeKnowledgeFiles,
} from './console-bots-support.ts';
import {
  createCustomIntegration,
  createGeneralWebhook,
  disableEnableAndRotateSecret,
  listAndDeleteIntegration,
  retryFailedChannelDelivery,
  rotateCustomToken,
} from './console-integrations-support.ts';
import {
  conversationsAndOptOuts,
  createChannels,
  createProject,
  firstScreenBudget,
  signInAndListProjects,
  simulateSandboxReply,
  useConsoleStory,
} from './console-support.ts';

// The console driven in Debian's Chromium against the whole local service: what a user does in Settings →
// Integrations, checked through the management API and the public endpoints. One story in one browser page: each
// step works on what the steps before it made (the project, its channels, its integrations), so they run in order.
describeNeeding(chromium, 'console in a browser', () => {
  useConsoleStory();

  it('ships under 40 KB of gzipped JavaScript and is interactive in under 1 s', firstScreenBudget);
  it(
    'refuses a wrong admin key, then signs in and lists the projects created through the API, a page at a time',
    signInAndListProjects,
  );
  it('creates a project, which then heads the list', createProject);
  it('creates a channel of each type', createChannels);
  it('shows where inbound mail goes and simulates a contact’s reply on a sandbox channel', simulateSandboxReply);
  it(
    'shows a channel’s suppressions (and lifts one), the WhatsApp window, and received images as previews',
    conversationsAndOptOuts,
  );

  it(
    'creates a custom integration whose token is shown once, works on the send endpoint and is gone after a reload',
    createCustomIntegration,
  );
  it('rotates the custom token: the new one is shown once and the old one stops working', rotateCustomToken);
  it(
    'creates a general webhook with a bearer token; a test event reaches the receiver signed and shows in the delivery log',
    createGeneralWebhook,
  );
  it('disables and enables the webhook, and rotates its signing secret (shown once)', disableEnableAndRotateSecret);
  it(
    'creates a channel-specific webhook (type, then instance); a failed delivery is retried from the log',
    retryFailedChannelDelivery,
  );
  it('lists every integration and deletes one', listAndDeleteIntegration);

  it(
    'shows the API token state from the API (active for a token created through the API, none after revoke) and the bot credits',
    apiTokenAndCredits,
  );
  it('shows the bots with their knowledge files and status', botsWithKnowledge);
  // Two uploads past 6 MB and an OCR pass: ~10 s alone, 30 s and more beside the other files under load.
  it(
    'uploads knowledge files past 6 MB straight to storage, by file picker and by drag and drop, and shows OCR pages',
    uploadLargeKnowledgeFiles,
    90_000,
  );
  // 57 files uploaded and ingested first: ~10 s alone, past 30 s beside the rest of the suite.
  it(
    'pages through a bot with more files than one page: the first 50, then the rest on "Load more files"',
    pageThroughKnowledgeFiles,
    90_000,
  );
  it('is usable at phone width: no sideways scrolling, tables as labelled cards', phoneWidth);
  it(
    'is accessible: every control has a label, the keyboard reaches the actions, text has enough contrast',
    accessibility,
  );
});
