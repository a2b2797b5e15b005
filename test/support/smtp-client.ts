import { connect, type Socket } from 'node:net';

/** One SMTP reply: its code and its text lines (multi-line replies joined). */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * A bare SMTP client over a socket, for tests that need each reply's code (nodemailer hides the per-recipient
 * ones): `reply()` waits for the next complete reply, `send()` writes a command and waits for its reply.
 */
export class RawSmtp {
  private buffer = '';
  private readonly replies: SmtpReply[] = [];
  private waiting: ((reply: SmtpReply) => void) | undefined;
  closed = false;
  readonly closedAt: Promise<number>;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.drain();
    });
    socket.on('error', () => {});
    this.closedAt = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        resolve(Date.now());
      }),
    );
  }

  static async open(port: number): Promise<RawSmtp> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawSmtp(socket);
  }

  private drain(): void {
    for (;;) {
      // A reply ends with a line `NNN text` (a space after the code); `NNN-text` lines continue it.
      const match = /^(?:\d{3}-[^\r\n]*\r\n)*(\d{3})(?: [^\r\n]*)?\r\n/.exec(this.buffer);
      if (!match) return;
      this.buffer = this.buffer.slice(match[0].length);
      const reply = { code: Number(match[1]), text: match[0].trim() };
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(reply);
      } else this.replies.push(reply);
    }
  }

  /** The next reply (the banner first); rejects if the connection closes before one comes. */
  reply(timeoutMs = 10_000): Promise<SmtpReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no SMTP reply in time')), timeoutMs);
      this.closedAt.then(() => {
        clearTimeout(timer);
        reject(new Error('connection closed'));
      });
      this.waiting = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
    });
  }

  async send(line: string): Promise<SmtpReply> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** Writes raw bytes (a message body) without waiting. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  close(): void {
    this.socket.destroy();
  }
}
