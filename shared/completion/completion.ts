import type { BotStore } from '../bots/index.ts';
import type { CreditLedger } from '../credits/index.ts';
import type { KnowledgeSearch } from '../knowledge/index.ts';
import type {
  ConversationTurn,
  JsonSchemaFormat,
  ModelParameters,
  ModelRouter,
  ModelUsage,
  ToolCall,
  ToolChoice,
  ToolDefinition,
} from '../models/index.ts';

/** Who asks: the project the credit is charged to, with its monthly allowance. */
export interface CompletionCaller {
  projectId: string;
  monthlyBotCredits: number;
}

/**
 * What a completion asks of the model: the one request shape. Every completion route maps its body onto it (the
 * native `/completion`, Chat Completions and Responses), and the use case runs it the same way whichever route asked.
 */
export interface CompletionRequest {
  /** What the bot's knowledge is searched for: the prompt, or the conversation's last user message. */
  prompt: string;
  /** Exactly one of the two (each route checks it): the bot whose instructions, knowledge and model answer. */
  botId?: string;
  /** Standalone instructions, without a bot (native `/completion` only). */
  instructions?: string;
  /** The conversation, oldest first, ending with (or containing) `prompt`; absent: `prompt` alone. */
  turns?: ConversationTurn[];
  /** The caller's own system instructions, placed after the bot's (OpenAI-format `system` / `developer`). */
  extraInstructions?: string;
  responseFormat: 'text' | 'json';
  /** With `responseFormat: json`: the schema the answer must be valid against (retried once, then 502). */
  jsonSchema?: JsonSchemaFormat;
  /** The caller's functions the model may call (OpenAI-format routes). */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Overrides the bot's temperature. */
  temperature?: number;
  /** At most the deployment's ceiling (`BOT_MAX_OUTPUT_TOKENS`); absent: the ceiling. */
  maxOutputTokens?: number;
  /** The caller's other generation parameters: refused before the charge when the bot's provider does not take one. */
  parameters?: ModelParameters;
  /**
   * The request's costly checks (compiling the caller's answer schema), run once the bot is resolved and before the
   * charge: a request naming no bot of the caller's never pays for them. Throws the caller's 400.
   */
  checkBeforeCharge?: () => void;
}

/** A completion as the use case runs it: the request, who asks, and by when. */
export interface CompletionInput extends CompletionRequest {
  caller: CompletionCaller;
  /** The caller's budget, for messages. */
  timeoutMs: number;
  /** Epoch ms by which the answer must be ready; the model call is aborted then. */
  deadline: number;
  /**
   * Fires when the caller went away: the model call is aborted at once. Once the model was called the credit is final
   * (the provider has the prompt); before that, nothing is asked of the model and the credit goes back.
   */
  callerGone?: AbortSignal;
}

/** A knowledge file whose excerpts were given to the model, with its best excerpt's score (the wire's `fontes`). */
export interface CompletionSource {
  fileName: string;
  score: number;
}

/** `tool_calls` when the model asked for calls, `length` when cut at the token limit, else `stop`. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface CompletionFacts {
  usage?: ModelUsage;
  model: string;
  /** Files the answer was grounded on, best first; empty without knowledge. */
  sources: CompletionSource[];
  /** True when generation stopped at the output token limit rather than at a natural end. */
  truncated: boolean;
  /** The calls of the caller's functions the model asked for (empty when it answered with text). */
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

export type CompletionOutput =
  | ({ responseFormat: 'text'; text: string } & CompletionFacts)
  | ({ responseFormat: 'json'; data: unknown; text: string } & CompletionFacts);

/**
 * A streamed completion: text pieces and the model's calls (`tool-call` opens call `index` with its id and name,
 * `tool-arguments` pieces follow) as the model yields them, then one `end` once the charge is settled.
 */
export type CompletionStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; index: number; id: string; name: string }
  | { type: 'tool-arguments'; index: number; text: string }
  | { type: 'end'; usage?: ModelUsage; model: string; truncated: boolean; finishReason: FinishReason };

export interface CompletionStream {
  /** Known before the first piece (the knowledge search ran before generation). */
  sources: CompletionSource[];
  /**
   * The rest of the completion; the first piece has already arrived, so the model was called and the credit is final
   * however the caller leaves. A model failure while it runs is thrown after the credit was refunded; ending the
   * iteration early counts as the caller going away (the model call aborted, the credit kept).
   */
  events: AsyncIterable<CompletionStreamEvent>;
}

/** What the use case reports without failing the request (a search that failed, a refund left to the sweeper). */
export interface CompletionLog {
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

export interface CompleteTextDeps {
  bots: Pick<BotStore, 'get'>;
  knowledge: KnowledgeSearch;
  credits: CreditLedger;
  models: ModelRouter;
  /** The deployment's output ceiling (`BOT_MAX_OUTPUT_TOKENS`): every model call is sent `min(asked, ceiling)`. */
  maxOutputTokens: number;
  log: CompletionLog;
  now?: () => number;
  newChargeId?: () => string;
  /** Longest the knowledge search may take before generation goes on without excerpts (default 5 s). */
  knowledgeBudgetMs?: number;
}
