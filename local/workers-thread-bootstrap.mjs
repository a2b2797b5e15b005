// The workers thread loads the functions' TypeScript itself (tsx), whatever loads the main thread's (tsx under
// `npm start`, vitest's module runner in tests).
import { register } from 'tsx/esm/api';

register();
await import('./workers-thread.ts');
