/**
 * zod for the runtime code: `import * as z from '#shared/kernel/validation/zod.ts'`, never `zod` itself.
 *
 * Decision: the functional `zod/mini` API rather than zod's classic one. Classic attaches every method to every
 * schema instance and keeps its whole namespace in a bundle (about 190 kB minified per function and some 20 ms of
 * each cold import spent building schemas); mini is the same core (same parsing, same issues, same JSON Schema),
 * with checks and wrappers as functions (`z.optional(z.string().check(z.minLength(1)))`) that a bundler can drop
 * when unused. Unlike classic, mini sets no error messages of its own: English is selected here, once, before any
 * schema module runs, so API error bodies read exactly as before ("Too small: expected string to have >=1
 * characters"). Every module that declares or parses schemas imports zod through this file for that reason.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
