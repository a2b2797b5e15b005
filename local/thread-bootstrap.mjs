// Entry of the runner's threads (./threads.ts): the thread loads the project's TypeScript itself
// (./typescript-hooks.mjs), whatever loads the main thread's (`npm start`, vitest's module runner in tests), then runs
// the module named in `workerData.entry`. LOCAL_THREAD_IMPORT (a module's absolute path) is loaded first in every
// thread: a benchmark's instrumentation (bench/lib/send-stamps.mjs), which `node --import` would give the main thread
// only (the threads get their own Node flags).
import { workerData } from 'node:worker_threads';
import './typescript-hooks.mjs';

if (process.env.LOCAL_THREAD_IMPORT) await import(process.env.LOCAL_THREAD_IMPORT);
await import(workerData.entry);
