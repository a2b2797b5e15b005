import { createServer, type ServerResponse } from 'node:http';
import { sampleFromSchema } from '#shared/model-providers/index.ts';
import { type ModelServer, serveModel } from '#test/support/model-double.ts';
import { startTestService, type TestService } from '#test/support/service.ts';

/** A message as the double received it (OpenAI's Chat Completions shape). */
export interface ToolDoubleMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ToolDoubleRequest {
  path: string;
  body: Record<string, any> & { messages?: ToolDoubleMessage[] };
  /** The last user message's text. */
  prompt: string;
}

/** Its base URL serves as OPENAI_BASE_URL and EMBEDDINGS_BASE_URL alike; `find` looks at chat requests. */
export type ToolModelDouble = ModelServer<ToolDoubleRequest>;

/**
 * An OpenAI-compatible model server that calls tools, for tests of the OpenAI-format routes with real clients:
 * - with `tools` (and `tool_choice` not `none`) and a conversation that does not end with tool results, it answers
 *   tool calls: the named function (`tool_choice`), else the first; `#parallel` in the prompt calls every function
 *   (unless `parallel_tool_calls: false`); arguments are generated from each function's schema, strings being the
 *   prompt's last capitalised word ("weather in Lisbon" → "Lisbon");
 * - after tool results, it answers `Results: <each result>` (which shows it received them);
 * - `response_format: json_schema`: a value generated from the schema; `#badschema`: `{}` (invalid against a schema
 *   with required fields) every time; `#badonce`: invalid the first time a marker is seen, valid the next;
 * - `json_object`: `{"answer":42,"ok":true}`;
 * - otherwise `Echo: <prompt>`.
 * Streamed (`stream: true`) as OpenAI streams: a word per chunk, tool calls with `index`, `id`, `type` and the name
 * on their first piece and the arguments in two more, `finish_reason`, usage last with `include_usage`. Directives:
 * `#late=<ms>` waits that long before the first chunk; `#tailpause=<ms>` waits that long after the text before the
 * finish chunk (a model whose end event comes late); `#words=<n>` answers n words.
 * `POST /v1/embeddings`: deterministic vectors (8 numbers, or `dimensions`), in input order.
 */
export async function startToolModelDouble(): Promise<ToolModelDouble> {
  const received: ToolDoubleRequest[] = [];
  const abandoned: ToolDoubleRequest[] = [];
  const seenBadOnce = new Set<string>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as ToolDoubleRequest['body'];
    if (req.method === 'POST' && req.url === '/v1/embeddings') {
      received.push({ path: req.url, body, prompt: '' });
      const texts = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
      const size = typeof body.dimensions === 'number' ? body.dimensions : 8;
      const data = texts.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from({ length: size }, (_, i) => ((text.length + i * 7) % 13) / 13 - 0.5),
      }));
      return send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 3, total_tokens: 3 } });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(res, 404, { error: 'no route' });
    const messages = body.messages ?? [];
    const prompt = messages.findLast((m) => m.role === 'user')?.content ?? '';
    const request: ToolDoubleRequest = { path: req.url, body, prompt: typeof prompt === 'string' ? prompt : '' };
    received.push(request);
    res.on('close', () => {
      if (!res.writableEnded) abandoned.push(request);
    });
    const number = (name: string) => {
      const m = new RegExp(`#${name}=(\\d+)`).exec(request.prompt);
      return m ? Number(m[1]) : undefined;
    };

    const answer = decide(body, messages, request.prompt, seenBadOnce);
    if (body.stream === true)
      return streamAnswer(res, body, answer, {
        lateMs: number('late') ?? 0,
        tailPauseMs: number('tailpause') ?? 0,
      });
    const message = answer.calls.length
      ? {
          role: 'assistant',
          content: null,
          tool_calls: answer.calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : { role: 'assistant', content: answer.text };
    return send(res, 200, {
      id: 'chatcmpl-double',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: answer.calls.length ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
  });
  return serveModel(server, received, abandoned);
}

interface Answer {
  text: string;
  calls: { id: string; name: string; arguments: string }[];
}

let callSeq = 0;

function decide(
  body: ToolDoubleRequest['body'],
  messages: ToolDoubleMessage[],
  prompt: string,
  seenBadOnce: Set<string>,
): Answer {
  const tools = (body.tools ?? []) as { function: { name: string; parameters?: Record<string, unknown> } }[];
  const last = messages.at(-1);
  if (tools.length > 0 && body.tool_choice !== 'none' && last?.role !== 'tool') {
    const choice = body.tool_choice as { function?: { name: string } } | string | undefined;
    const named = typeof choice === 'object' ? choice.function?.name : undefined;
    const chosen = named
      ? tools.filter((t) => t.function.name === named)
      : prompt.includes('#parallel') && body.parallel_tool_calls !== false
        ? tools
        : tools.slice(0, 1);
    return {
      text: '',
      calls: chosen.map((t) => ({
        id: `call_double_${++callSeq}`,
        name: t.function.name,
        arguments: JSON.stringify(sampleFromSchema(t.function.parameters ?? { type: 'object' }, prompt)),
      })),
    };
  }
  if (last?.role === 'tool') {
    const results = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--)
      results.unshift(String(messages[i]!.content));
    return { text: `Results: ${results.join(' | ')}`, calls: [] };
  }
  const format = body.response_format as { type: string; json_schema?: { schema: unknown } } | undefined;
  if (format?.type === 'json_schema') {
    const marker = /#badonce \S+/.exec(prompt)?.[0];
    const bad = prompt.includes('#badschema') || (marker !== undefined && !seenBadOnce.has(marker));
    if (marker) seenBadOnce.add(marker);
    return { text: bad ? '{}' : JSON.stringify(sampleFromSchema(format.json_schema?.schema, prompt)), calls: [] };
  }
  if (format?.type === 'json_object') return { text: '{"answer":42,"ok":true}', calls: [] };
  const words = /#words=(\d+)/.exec(prompt);
  if (words) return { text: Array.from({ length: Number(words[1]) }, (_, i) => `w${i}`).join(' '), calls: [] };
  return { text: `Echo: ${prompt}`, calls: [] };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function streamAnswer(
  res: ServerResponse,
  body: ToolDoubleRequest['body'],
  answer: Answer,
  options: { lateMs: number; tailPauseMs: number },
): Promise<void> {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-double', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices, ...extra })}\n\n`;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (options.lateMs) await pause(options.lateMs);
  const write = async (data: string) => {
    if (res.destroyed) return false;
    res.write(data);
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  };
  let first = true;
  const delta = (fields: Record<string, unknown>) => {
    const out = first ? { role: 'assistant', ...fields } : fields;
    first = false;
    return out;
  };
  for (const piece of answer.text.match(/\s*\S+\s*/g) ?? [])
    if (!(await write(chunk([{ index: 0, delta: delta({ content: piece }), finish_reason: null }])))) return;
  for (const [index, call] of answer.calls.entries()) {
    const half = Math.ceil(call.arguments.length / 2);
    const pieces = [
      { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
      { index, function: { arguments: call.arguments.slice(0, half) } },
      { index, function: { arguments: call.arguments.slice(half) } },
    ];
    for (const piece of pieces)
      if (!(await write(chunk([{ index: 0, delta: delta({ tool_calls: [piece] }), finish_reason: null }])))) return;
  }
  if (options.tailPauseMs) await pause(options.tailPauseMs);
  if (res.destroyed) return;
  res.write(chunk([{ index: 0, delta: {}, finish_reason: answer.calls.length ? 'tool_calls' : 'stop' }]));
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    res.write(chunk([], { usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } }));
  res.end('data: [DONE]\n\n');
}

/** The local service on a new tool double (model and embeddings); `env` sets the rest. Close both. */
export async function startServiceOnToolDouble(
  env: Record<string, string> = {},
): Promise<{ svc: TestService; model: ToolModelDouble }> {
  const model = await startToolModelDouble();
  try {
    const svc = await startTestService({
      threads: false,
      env: {
        MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_MODEL: 'double-model',
        OPENAI_API_KEY: 'sk-double',
        EMBEDDINGS_PROVIDER: 'openai',
        EMBEDDINGS_BASE_URL: model.baseUrl,
        EMBEDDINGS_MODEL: 'double-embeddings',
        ...env,
      },
    });
    return { svc, model };
  } catch (error) {
    await model.close();
    throw error;
  }
}
