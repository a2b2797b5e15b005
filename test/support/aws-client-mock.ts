import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach } from 'vitest';

/**
 * `aws-sdk-client-mock`'s `mockClient`, scoped to the calling file (or `describe`): its behaviours are cleared after
 * each test, and the client class it patches (for the whole process) is given back after the last one, so the next
 * file in the same worker (`isolate: false`, vitest.config.ts) talks to the real client again. Call it where a hook
 * may be registered: at the top of a file or inside a `describe`.
 */
export const mockAwsClient = ((client) => {
  const mocked = mockClient(client);
  afterEach(() => mocked.reset());
  afterAll(() => mocked.restore());
  return mocked;
}) as typeof mockClient;
