// A function's sandbox in bundles mode (./load-bundle.ts): plain Node imports the deployed bundle (no TypeScript
// loader, nothing of the runner's modules), then runs one invocation per message, with a Lambda-like context.
import { parentPort, workerData } from 'node:worker_threads';

const serialize = (error) =>
  error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: 'Error', message: String(error) };

if (workerData.sourceMaps) process.setSourceMapsEnabled(true);
let handler;
try {
  ({ handler } = await import(workerData.entry));
  if (typeof handler !== 'function') throw new Error(`${workerData.entry} does not export a handler`);
} catch (error) {
  parentPort.postMessage({ type: 'failed', error: serialize(error) });
  process.exit(1);
}
parentPort.on('message', async ({ id, event, context }) => {
  const { deadline, ...fields } = context;
  const lambdaContext = {
    ...fields,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  try {
    const result = await handler(event, lambdaContext);
    parentPort.postMessage({ type: 'result', id, result });
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, error: serialize(error) });
  }
});
parentPort.postMessage({ type: 'ready' });
