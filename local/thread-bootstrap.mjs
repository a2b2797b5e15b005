// Entry of the runner's threads (./threads.ts): the thread loads the project's TypeScript itself
// (./typescript-hooks.mjs), whatever loads the main thread's (`npm start`, vitest's module runner in tests), then runs
// the module named in `workerData.entry`.
import { workerData } from 'node:worker_threads';
import './typescript-hooks.mjs';

await import(workerData.entry);
