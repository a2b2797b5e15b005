// Shared by the three README-flow programs (bench/sdk-generators.ts runs them against a started service): where
// the service is, the admin key, the PDF, a webhook receiver, and a check that stops the flow on a wrong answer.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BASE = process.env.SWITCHBOARD_URL!;
export const ADMIN = process.env.SWITCHBOARD_ADMIN_KEY!;
export const PDF = new Blob([readFileSync(process.env.PDF_FILE!)], { type: 'application/pdf' });
export const KNOWLEDGE = '# Refunds\n\nRefunds take five business days after the return arrives.\n';

/** A receiver that counts the requests it gets and answers 204. */
export async function receiver(): Promise<{ url: string; close(): void; count(): number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, close: () => server.close(), count: () => n };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value of a step, or the flow stops with the step's name and the error the client gave. */
export function must<T>(step: string, value: T | undefined | null, error?: unknown): T {
  if (value === undefined || value === null) throw new Error(`${step} failed: ${JSON.stringify(error)}`);
  console.log(`ok ${step}`);
  return value;
}

/** Stops the flow when a step's answer is not what the README shows. */
export function expectThat(step: string, ok: boolean, detail: unknown): void {
  if (!ok) throw new Error(`${step}: unexpected ${JSON.stringify(detail)}`);
}
