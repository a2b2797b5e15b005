import type { ProjectApiTokenGrant } from '../../../auth/index.ts';
import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../../../contract/api-docs.ts';
import { type Context, type HttpEvent, type HttpResult, json } from '../../../http/types.ts';
import type { Logger } from '../../../kernel/logger.ts';
import type { EmbedTexts } from '../../../knowledge/index.ts';
import { LAMBDA_MARGIN_MS } from '../lambda-margin.ts';
import { embeddingsResult } from '../schemas.ts';
import {
  checkEmbeddingsAnswerFits,
  embeddingsRequest,
  embeddingsResponse,
  parseEmbeddingsRequest,
} from './embeddings.ts';

/**
 * `POST /api/v1/ai/embeddings` once the project API token passed: OpenAI's Embeddings, 1 bot credit per request of up
 * to 2,048 inputs, refunded when the model fails; a batch whose answer would not fit the response limit is a 400
 * before the charge.
 */
export function embeddingsHandler(deps: { embedTexts: EmbedTexts; log: Pick<Logger, 'info'> }) {
  return async function serveEmbeddings(
    event: HttpEvent<Record<string, unknown>, { grant: ProjectApiTokenGrant }>,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<HttpResult> {
    const request = parseEmbeddingsRequest(event.parsedBody);
    const output = await deps.embedTexts({
      caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
      model: request.model,
      texts: request.texts,
      ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
      checkBeforeCharge: (dimensions) => checkEmbeddingsAnswerFits(request, dimensions),
      deadline: Date.now() + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS,
    });
    deps.log.info('embeddings', { inputs: request.texts.length, model: output.model });
    return json(200, embeddingsResponse(request, output));
  };
}

/** The route in the API reference (the OpenAPI document). */
export function embeddingsDocs(): PublicOperationDocs {
  return {
    'POST /api/v1/ai/embeddings': {
      summary: "OpenAI's Embeddings (1 bot credit per request of up to 2,048 inputs)",
      description:
        '`model` is a botId of the project or `default`: both embed with the deployment’s embeddings model (the one ' +
        'knowledge indexes use: `EMBEDDINGS_PROVIDER`), or, when it has none, the deterministic hashed embedding ' +
        '(`hashed-ngrams-v1`, 256 dimensions). `input` a string or up to 2,048 strings (each at most 32,768 characters, ' +
        '1,200,000 in all; token arrays: 400). `encoding_format` `float` or `base64`; `dimensions` where the model can. ' +
        'Refunded when the model fails.',
      operationId: 'createEmbeddings',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      errorFormat: 'openai',
      requestBodies: [{ contentType: 'application/json', schema: embeddingsRequest, source: 'handler' }],
      responses: { 200: { description: 'One vector per input, in input order.', body: embeddingsResult } },
      errors: {
        ...JSON_BODY_ERRORS,
        ...BOTS_API_AUTH_ERRORS,
        402: ['ERR_NO_BOT_CREDITS'],
        403: ['BOT_FORBIDDEN'],
        404: ['BOT_NOT_FOUND'],
        502: ['GENERATION_FAILED'],
      },
    },
  };
}
