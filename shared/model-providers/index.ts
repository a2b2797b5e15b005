/**
 * Model providers: the models this deployment calls (Bedrock Converse, any OpenAI-compatible server, the offline
 * generator; Titan or OpenAI-compatible embeddings), built from their settings, Bedrock's SDK loaded on first use.
 * Only composition roots need them; areas speak of models through `models`. The only way into the area from outside it.
 */
export { modelSettings } from './settings.ts';
export { embeddingsFromSettings, modelProbeFromSettings, modelRouterFromSettings } from './wiring.ts';
// The offline generator and its schema sampling, for the benches and the tests' model doubles.
export { OfflineModelProvider } from './adapters/offline-model.ts';
export { boundedSample, sampleFromSchema } from './adapters/schema-sample.ts';
