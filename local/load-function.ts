import { installLambdaStreamingGlobals } from './response-streaming.ts';

/**
 * A function's handler, imported from the same module that is deployed (`functions/<fn>/handler.ts`), with the
 * globals the Lambda runtime provides (`awslambda`, for functions that stream their response) in place first; or in
 * bundles mode (`LOCAL_FUNCTIONS=bundles`) run from the asset `cdk deploy` uploads (./load-bundle.ts).
 */
export async function loadFunction(fn: string): Promise<unknown> {
  if (process.env.LOCAL_FUNCTIONS === 'bundles') return (await import('./bundles/load-bundle.ts')).loadBundle(fn);
  installLambdaStreamingGlobals();
  const mod = (await import(new URL(`../functions/${fn}/handler.ts`, import.meta.url).href)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') throw new Error(`functions/${fn}/handler.ts does not export a handler`);
  return mod.handler;
}
