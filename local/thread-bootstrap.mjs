// Entry of the runner's threads (./threads.ts): registers tsx so the thread loads the project's TypeScript itself,
// whatever loads the main thread's (tsx under `npm start`, vitest's module runner in tests), then runs the module
// named in `workerData.entry`.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
