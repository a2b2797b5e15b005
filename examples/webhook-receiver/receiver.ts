// receiver.ts: a webhook receiver, its own project (see README.md here). SIGNING_SECRET=whsec_… npx tsx receiver.ts
import { createServer } from 'node:http';
import { verifyWebhook } from '@switchboard/sdk/webhooks';

const port = Number(process.env.RECEIVER_PORT ?? 8787);
const seen = new Set<string>();

createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  if (req.headers.authorization !== 'Bearer my-receiver-token') return res.writeHead(401).end();
  try {
    // The whsec_… shown when the webhook was created; the raw body exactly as received.
    const event = verifyWebhook(process.env.SIGNING_SECRET!, body, req.headers);
    // A retry carries the same id: handle each event once (a real receiver keeps the ids in its database).
    if (!seen.has(event.id)) {
      seen.add(event.id);
      console.log(event.type, event.id, JSON.stringify(event.data));
    }
    res.writeHead(204).end();
  } catch {
    res.writeHead(400).end(); // bad signature, or a timestamp more than 5 minutes off
  }
}).listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/webhooks`));
