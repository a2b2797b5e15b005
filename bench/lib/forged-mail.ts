import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { dsnMail } from '#test/support/dsn-mail.ts';
import { RawSmtp } from '#test/support/smtp-client.ts';
import type { Arrival } from './service-watch.ts';

/**
 * Forged opt-outs against a running service, for bench/untrusted-input.ts: each attack as the issue reproduced it,
 * through the service's SMTP listener, with the time until its `message.received` reaches the webhook, the service's
 * RSS growth and `/healthz` p99 while it runs, and what it changed (the channel's suppressions after it, and what a
 * send to the named addresses answers):
 * 1. a spoofed `From` with the subject `unsubscribe`;
 * 2. a mail planting a Message-ID, then a delivery status report naming it with three recipients;
 * 3. a report about a mail the channel really sent, naming its recipient and 99 addresses it never went to;
 * 4. one SMTP session saying 200 `RCPT TO` (two messages of 100 expected, the 101st of each answered 452).
 */
export interface ForgedMailContext {
  baseUrl: string;
  smtpPort: number;
  projectId: string;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** Each event at the webhook receiver. */
  arrivals: Arrival[];
  observed<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; healthz: number[] }>;
  rssMb(): number;
}

export interface ForgedMailRow {
  attack: string;
  receivedMs: number;
  growthMb: number;
  healthzP99: number;
  suppressed: number;
  sendStatus: number | string;
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;

/** Where the channel's own mail goes: an SMTP server that keeps each message's recipients and Message-ID. */
async function startOutboundSmtp() {
  const sent: { rcptTo: string[]; messageId: string }[] = [];
  const outbound = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const head = Buffer.concat(chunks)
          .toString('utf8')
          .split(/\r?\n\r?\n/)[0]!;
        sent.push({
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          messageId: /^Message-ID:\s*(\S+)/im.exec(head)?.[1] ?? '',
        });
        callback();
      });
    },
  });
  outbound.listen(0, '127.0.0.1');
  await once(outbound.server, 'listening');
  return { sent, outbound };
}

/**
 * 200 RCPT TO in one session, then 101 in a second message: how many the listener took in each before its first 452.
 */
async function rcptFlood(smtpPort: number, address: string): Promise<number[]> {
  const accepted: number[] = [];
  const client = await RawSmtp.open(smtpPort);
  await client.reply();
  await client.send('EHLO bench.example.org');
  for (let m = 0; m < 2; m++) {
    await client.send('MAIL FROM:<bench@example.org>');
    let ok = 0;
    for (let i = 0; i < 100 + (m === 0 ? 100 : 1); i++)
      if ((await client.send(`RCPT TO:<${address}>`)).code === 250) ok++;
    accepted.push(ok);
    await client.send('RSET');
  }
  client.close();
  return accepted;
}

/**
 * The email channel under attack, its mail sent through `outboundPort`, with a custom token: a send from it, and its
 * suppressions once they stop changing (a change lands just after its message.received).
 */
async function mailChannel(ctx: ForgedMailContext, outboundPort: number) {
  const address = `forged-${Date.now()}@inbound.example.com`;
  const channel = await ctx.admin('POST', `/projects/${ctx.projectId}/channels`, {
    name: 'forged mail',
    type: 'email',
    address,
    provider: {
      kind: 'smtp',
      host: '127.0.0.1',
      port: outboundPort,
      allowPlaintext: true,
    },
  });
  const { token } = await ctx.admin('POST', `/projects/${ctx.projectId}/integrations`, {
    product: 'custom',
    channelId: channel.channelId,
  });
  const send = async (to: string[]) =>
    (
      await fetch(`${ctx.baseUrl}/api/integration/generic`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to, subject: 'Pedido', body: 'x' }),
      })
    ).status;
  const count = async () =>
    (await ctx.admin('GET', `/projects/${ctx.projectId}/channels/${channel.channelId}/suppressions?limit=100`)).items
      .length as number;
  const suppressed = async () => {
    let last = await count();
    for (let still = 0; still < 10; ) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await count();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    return last;
  };
  return { address, channel, send, suppressed };
}

export async function forgedMail(ctx: ForgedMailContext): Promise<ForgedMailRow[]> {
  const { sent, outbound } = await startOutboundSmtp();
  const { address, channel, send, suppressed } = await mailChannel(
    ctx,
    (outbound.server.address() as AddressInfo).port,
  );
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: ctx.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  const received = (n: number) =>
    new Promise<number>((resolve) => {
      const seen = ctx.arrivals.length;
      const poll = () => {
        const got = ctx.arrivals
          .slice(seen)
          .filter((a) => a.type === 'message.received' && a.channelId === channel.channelId);
        if (got.length >= n) resolve(got.at(-1)!.at);
        else setTimeout(poll, 2);
      };
      poll();
    });

  const rows: ForgedMailRow[] = [];
  async function attack(name: string, mails: () => Promise<number>, named: string[]): Promise<void> {
    const before = ctx.rssMb();
    const t = performance.now();
    const run = await ctx.observed(mails);
    rows.push({
      attack: name,
      receivedMs: run.value - t,
      growthMb: run.peakMb - before,
      healthzP99: p99(run.healthz),
      suppressed: await suppressed(),
      sendStatus: named.length ? await send(named) : '',
    });
  }

  await attack('spoofed From, subject "unsubscribe"', async () => {
    const arrived = received(1);
    await transport.sendMail({ from: 'victim@customer.example.org', to: address, subject: 'unsubscribe', text: '' });
    return arrived;
  }, ['victim@customer.example.org']);

  const victims = ['a@victim.example.org', 'b@victim.example.org', 'c@victim.example.org'];
  await attack(
    'planted Message-ID, then a DSN naming it with 3 recipients',
    async () => {
      const arrived = received(2);
      const planted = `<planted-${randomBytes(4).toString('hex')}@evil.example.net>`;
      await transport.sendMail({
        from: 'x@evil.example.net',
        to: address,
        subject: 'hi',
        text: 'x',
        messageId: planted,
      });
      await transport.sendMail({ envelope: { from: '', to: [address] }, raw: dsnMail(address, planted, victims) });
      return arrived;
    },
    victims,
  );

  await send(['real@customer.example.org']);
  const real = sent.find((m) => m.rcptTo.includes('real@customer.example.org'))!;
  const strangers = Array.from({ length: 99 }, (_, i) => `stranger${i}@customer.example.org`);
  await attack(
    'DSN about a sent mail: its recipient + 99 it never went to',
    async () => {
      const arrived = received(1);
      await transport.sendMail({
        envelope: { from: '', to: [address] },
        raw: dsnMail(address, real.messageId, ['real@customer.example.org', ...strangers]),
      });
      return arrived;
    },
    strangers.slice(0, 3),
  );

  const accepted = await rcptFlood(ctx.smtpPort, address);
  rows.push({
    attack: `200 RCPT TO in one session (then 101 in a second message): ${accepted.join(' and ')} accepted`,
    receivedMs: 0,
    growthMb: 0,
    healthzP99: 0,
    suppressed: await suppressed(),
    sendStatus: '',
  });
  transport.close();
  await new Promise<void>((r) => outbound.close(() => r()));
  return rows;
}

export function forgedMailReport(rounds: ForgedMailRow[][]): string {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const lines = [
    '| forged mail | message.received after ms | service RSS growth MB | /healthz p99 ms | channel suppressions after | a send to the named addresses |',
    '|---|---|---|---|---|---|',
  ];
  for (const [i, row] of rounds[0]!.entries()) {
    const all = rounds.map((r) => r[i]!);
    lines.push(
      `| ${row.attack} | ${Math.round(median(all.map((r) => r.receivedMs)))} | ${Math.round(median(all.map((r) => r.growthMb)))} | ` +
        `${median(all.map((r) => r.healthzP99)).toFixed(1)} | ${row.suppressed} | ${row.sendStatus} |`,
    );
  }
  return lines.join('\n');
}
