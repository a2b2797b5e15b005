import type { PublicOperationDocs } from '../../contract/api-docs.ts';
import { completionDocs } from './completion-route.ts';
import { chatCompletionsDocs } from './openai/chat-route.ts';
import { embeddingsDocs } from './openai/embeddings-route.ts';
import { modelsDocs } from './openai/models-route.ts';
import { responsesDocs } from './openai/responses-route.ts';

/** This area's routes in the API reference (the OpenAPI document), each written beside its handler. */
export function completionPublicDocs(): PublicOperationDocs {
  return { ...completionDocs(), ...chatCompletionsDocs(), ...responsesDocs(), ...embeddingsDocs(), ...modelsDocs() };
}
