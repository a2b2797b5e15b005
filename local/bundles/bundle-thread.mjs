// A function's sandbox in bundles mode (./load-bundle.ts): plain Node imports the deployed bundle (no TypeScript
// loader, nothing of the runner's modules), then runs one invocation per message, with a Lambda-like context.
// A function that streams its response (`awslambda.streamifyResponse`) gets a response stream whose bytes (the
// HTTP integration prelude, then the body) are posted to the runner as they are written, as the runtime sends them.
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';

const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

const serialize = (error) =>
  error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: 'Error', message: String(error) };

// What the Lambda runtime provides to streaming functions (the same as local/response-streaming.ts in source mode),
// member by member: `@aws/lambda-invoke-store` creates `awslambda` with only its store.
globalThis.awslambda ??= {};
globalThis.awslambda.streamifyResponse ??= (handler) => {
  handler[HANDLER_STREAMING] = 'response';
  return handler;
};
globalThis.awslambda.HttpResponseStream ??= {
  from(stream, prelude) {
    stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
    stream.prelude = Buffer.concat([Buffer.from(JSON.stringify(prelude), 'utf8'), Buffer.alloc(8)]);
    return stream;
  },
};

class ResponseStream extends Writable {
  constructor(id) {
    super({ decodeStrings: true });
    this.id = id;
    this.contentType = 'application/octet-stream';
    this.prelude = undefined;
    this.started = false;
  }
  setContentType(contentType) {
    this.contentType = contentType;
  }
  _write(chunk, _encoding, callback) {
    if (!this.started) {
      this.started = true;
      parentPort.postMessage({ type: 'head', id: this.id, contentType: this.contentType });
      if (this.prelude) parentPort.postMessage({ type: 'chunk', id: this.id, chunk: this.prelude });
    }
    if (chunk.length > 0) parentPort.postMessage({ type: 'chunk', id: this.id, chunk });
    callback();
  }
}

if (workerData.sourceMaps) process.setSourceMapsEnabled(true);
let handler;
try {
  ({ handler } = await import(workerData.entry));
  if (typeof handler !== 'function') throw new Error(`${workerData.entry} does not export a handler`);
} catch (error) {
  parentPort.postMessage({ type: 'failed', error: serialize(error) });
  process.exit(1);
}
const streaming = handler[HANDLER_STREAMING] === 'response';
const streams = new Map();

parentPort.on('message', async (message) => {
  if (message.type === 'abort') {
    // The client went away: the runtime destroys the response stream, so the function can stop its work.
    streams.get(message.id)?.destroy();
    return;
  }
  const { id, event, context } = message;
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
    if (!streaming) {
      const result = await handler(event, lambdaContext);
      parentPort.postMessage({ type: 'result', id, result });
      return;
    }
    const stream = new ResponseStream(id);
    streams.set(id, stream);
    try {
      await handler(event, stream, lambdaContext);
      if (!stream.started) parentPort.postMessage({ type: 'head', id, contentType: stream.contentType });
    } finally {
      streams.delete(id);
    }
    parentPort.postMessage({ type: 'result', id });
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, error: serialize(error) });
  }
});
parentPort.postMessage({ type: 'ready', streaming });
