import { resolveBotForProject, type BotStore } from '../bots/index.ts';
import { makeCharging, type CreditLedger } from '../credits/index.ts';
import { DomainError, ValidationError } from '../kernel/domain-error.ts';
import type { EmbeddingsProvider } from '../models/index.ts';

/** Inputs one request (and one credit) may embed: Vercel's batch size, OpenAI's limit. */
export const EMBEDDING_INPUTS_PER_CREDIT = 2_048;

/** The embeddings model failed; the credit was refunded. */
export class EmbeddingFailedError extends DomainError {
  readonly code = 'GENERATION_FAILED';

  constructor(cause: unknown) {
    super('Embedding failed: the embeddings model did not answer. The credit was refunded.', { cause });
    this.name = 'EmbeddingFailedError';
  }
}

export interface EmbedTextsInput {
  caller: { projectId: string; monthlyBotCredits: number };
  /** A bot of the caller's project (it embeds with the deployment's model, the one its knowledge index uses), or `default`. */
  model: string;
  texts: string[];
  dimensions?: number;
  /**
   * Refuses (throws the caller's 400) a request whose answer would not fit, given the size of the vectors it would get;
   * run once that size is known and before the charge.
   */
  checkBeforeCharge?: (dimensions: number) => void;
  /** Epoch ms by which the vectors must be ready. */
  deadline: number;
}

export interface EmbedTextsOutput {
  vectors: Float32Array[];
  /** The embeddings model that answered. */
  model: string;
  /** Estimated: about 4 characters a token (the providers report none per text). */
  promptTokens: number;
}

/**
 * `POST /api/v1/ai/embeddings`, after auth, rate limit and validation: the bot (unless `default`; 403/404), the
 * dimensions the model can make (400 `unsupported_parameter` otherwise, nothing charged), the answer's size for
 * vectors of that many dimensions (`checkBeforeCharge`), 1 credit for up to {@link EMBEDDING_INPUTS_PER_CREDIT}
 * inputs, the vectors in input order, and the credit back if the model fails (a vector longer than the size the
 * answer was checked for is a failure).
 */
export function makeEmbedTexts(deps: {
  bots: Pick<BotStore, 'get'>;
  credits: CreditLedger;
  embeddings: EmbeddingsProvider;
  log: { error(message: string, extra?: Record<string, unknown>): void };
}) {
  const charge = makeCharging({ credits: deps.credits, log: deps.log });
  return async function embedTexts(input: EmbedTextsInput): Promise<EmbedTextsOutput> {
    if (input.model !== 'default') await resolveBotForProject(deps.bots, input.model, input.caller.projectId);
    if (input.dimensions !== undefined && !deps.embeddings.supportsDimensions(input.dimensions)) {
      const message = `dimensions ${input.dimensions} is not supported by this deployment's embeddings model (${deps.embeddings.model}).`;
      throw new ValidationError(message, [{ path: 'dimensions', message, code: 'unsupported_parameter' }]);
    }
    const dimensions = input.dimensions ?? deps.embeddings.defaultDimensions;
    input.checkBeforeCharge?.(dimensions);
    const account = { projectId: input.caller.projectId, monthlyAllowance: input.caller.monthlyBotCredits };
    const credit = await charge(account, 'embeddings');
    const signal = AbortSignal.timeout(Math.max(1, input.deadline - Date.now()));
    let vectors: Float32Array[];
    try {
      vectors = await deps.embeddings.embed(
        input.texts,
        'document',
        signal,
        input.dimensions === undefined ? {} : { dimensions: input.dimensions },
      );
      if (vectors.length !== input.texts.length)
        throw new Error(`${vectors.length} vectors for ${input.texts.length} texts`);
      if (vectors.some((vector) => vector.length > dimensions))
        throw new Error(`vectors longer than the ${dimensions} dimensions the answer was sized for`);
    } catch (cause) {
      await credit.refund(cause);
      throw new EmbeddingFailedError(cause);
    }
    await credit.settle();
    return {
      vectors,
      model: deps.embeddings.model,
      promptTokens: input.texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0),
    };
  };
}

export type EmbedTexts = ReturnType<typeof makeEmbedTexts>;
