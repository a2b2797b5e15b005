import { SandboxLimitError, SandboxTaskError, type ThreadSandbox } from '#shared/kernel/adapters/thread-sandbox.ts';
import type { Config } from '#shared/kernel/config.ts';
import { parseMail, parseMailHeaders, type ReceivedMessage } from '#shared/messaging/index.ts';
import { parsingSandbox } from './sandbox.ts';

/** Parsing one mail (25 MB at most, parts cut at their ceilings) takes well under a second. */
const MAIL_DEADLINE_MS = 10_000;

/**
 * How this function parses mail (./sandbox.ts): in-process, or in the sandbox, where a mail past its time or memory
 * ceiling still arrives, as its headers with `truncated: true` (accepted mail is never lost).
 */
export function mailParserFromConfig(cfg: Config): (raw: Buffer, to: string) => Promise<ReceivedMessage> {
  const sandbox = parsingSandbox(cfg);
  return sandbox ? sandboxedMailParser(sandbox) : parseMail;
}

/** {@link parseMail} in `sandbox`; past `deadlineMs` or the worker's heap, the mail's headers with `truncated: true`. */
export function sandboxedMailParser(
  sandbox: ThreadSandbox,
  deadlineMs = MAIL_DEADLINE_MS,
): (raw: Buffer, to: string) => Promise<ReceivedMessage> {
  return async (raw, to) => {
    const data = new Uint8Array(raw);
    try {
      const mail = await sandbox.run<ReceivedMessage>(
        'mail.parse',
        { raw: data, to },
        { deadlineMs, transfer: [data.buffer] },
      );
      // Attachments' bytes (media) cross the thread as plain Uint8Arrays: Buffers again here.
      if (mail.media)
        mail.media = mail.media.map((m) =>
          m.bytes ? { ...m, bytes: Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength) } : m,
        );
      return mail;
    } catch (error) {
      if (error instanceof SandboxLimitError && error.kind !== 'crash') return parseMailHeaders(raw, to);
      if (error instanceof SandboxTaskError) throw new Error(`${error.remoteName}: ${error.message}`);
      throw error;
    }
  };
}
