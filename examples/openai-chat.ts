// examples/openai-chat.ts: a bot through the `openai` SDK, streamed. SWITCHBOARD_API_TOKEN=sbk_… BOT=bot_… npx tsx examples/openai-chat.ts
import OpenAI from 'openai';

const BASE = process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:3000';
// The base URL is the Bots API's; the key is the project API token; `model` is a botId of that project.
const client = new OpenAI({ baseURL: `${BASE}/api/v1/ai`, apiKey: process.env.SWITCHBOARD_API_TOKEN });
const stream = await client.chat.completions.create({
  model: process.env.BOT ?? 'bot_…',
  messages: [{ role: 'user', content: 'How long do refunds take?' }],
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
process.stdout.write('\n');
