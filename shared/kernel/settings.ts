import * as z from './validation/zod.ts';

/**
 * Settings are variables of the environment, each declared once with its zod schema by the area it belongs to
 * (`shared/<area>/settings.ts`; the kernel keeps the generic ones in ./config.ts: runtime, region, endpoints, the
 * table, buckets, queues). Parsed once per process (a Lambda's cold start), so a missing or malformed setting fails
 * the cold start with the setting's name instead of failing a request; the local runner checks every area's at
 * start (local/settings.ts) and prints that one line.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** An area's settings. */
export interface AreaSettings<T> {
  /** The variables' names (the local runner checks them at start and passes them to the deployed bundles). */
  readonly names: readonly string[];
  /** The settings in `env`, or an error naming each bad one: `Invalid configuration: NAME: why`. */
  parse(env: Env): T;
  /** This process's settings: `process.env` parsed on first use, then kept. */
  read(): T;
}

/** Where the settings run: `local` when the local runner hosts the functions (some defaults differ from AWS). */
export interface Runtime {
  local: boolean;
}

/**
 * Declares an area's settings: each variable's schema (its default, its bounds, its description), and optionally
 * what the area derives from them (a default that depends on the runtime, a list parsed from text).
 */
export function declareSettings<S extends Record<string, z.ZodMiniType>, T = z.output<z.ZodMiniObject<S>>>(
  shape: S,
  derive?: (raw: z.output<z.ZodMiniObject<S>>, runtime: Runtime) => T,
): AreaSettings<T> {
  const schema = z.object(shape);
  let cached: T | undefined;
  const parse = (env: Env): T => {
    const result = schema.safeParse(env);
    if (!result.success) throw invalidConfiguration(result.error.issues);
    const runtime = { local: env.SWITCHBOARD_RUNTIME === 'local' };
    return derive ? derive(result.data, runtime) : (result.data as T);
  };
  return {
    names: Object.keys(shape),
    parse,
    read: () => {
      cached ??= parse(process.env);
      return cached;
    },
  };
}

/** One error for every problem found, each naming its setting (the local runner prints it as one line). */
export function invalidConfiguration(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Error {
  const problems = issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
  return new Error(`Invalid configuration: ${problems}`);
}

/** `true`/`false` (or 1/0, yes/no, on/off); absent: `fallback`. */
export const flag = (fallback: boolean) =>
  z.pipe(
    z.optional(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])),
    z.transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v))),
  );

export const nonEmpty = () => z.string().check(z.minLength(1));

/** A whole number above 0 and at most `max`, from its text in the environment. */
export const positiveInt = (max: number) => z.coerce.number().check(z.int(), z.gt(0), z.lte(max));
