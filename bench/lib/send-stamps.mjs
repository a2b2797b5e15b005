// Preloaded into each of a service's threads (LOCAL_THREAD_IMPORT, local/thread-bootstrap.mjs) by the volume bench:
// notes when each request to the provider double (the `host` SEND_STAMPS_HOST) leaves the service, with the Twilio
// `Body` it carries, and appends `<epoch ms>\t<body>` lines to SEND_STAMPS_FILE. It leaves when its bytes are handed
// to the operating system: as the request gets its socket when that is connected (a kept-alive one: Node writes the
// request there, in the same tick), else when the new connection has taken them ('finish'). The double's own arrival times are noted in the bench process, whose event loop may reach a
// request late on a loaded machine and bunch several arrivals into one instant; these are the service's.
import { appendFileSync } from 'node:fs';
import { ClientRequest } from 'node:http';

const host = process.env.SEND_STAMPS_HOST;
const file = process.env.SEND_STAMPS_FILE;

if (host && file) {
  let lines = [];
  const flush = () => {
    if (!lines.length) return;
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(flush, 200).unref();
  process.once('exit', flush);
  const end = ClientRequest.prototype.end;
  ClientRequest.prototype.end = function (chunk, ...rest) {
    if (chunk != null && typeof chunk !== 'function' && this.getHeader('host') === host) {
      const body = new URLSearchParams(String(chunk)).get('Body') ?? '';
      const note = () => lines.push(`${Date.now()}\t${body}`);
      if (this.socket && !this.socket.connecting) note();
      else
        this.once('socket', (socket) => {
          if (socket.connecting) this.once('finish', note);
          else note();
        });
    }
    return end.call(this, chunk, ...rest);
  };
}
