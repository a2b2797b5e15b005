// Preloaded into each of a service's threads (LOCAL_THREAD_IMPORT, local/thread-bootstrap.mjs) by the volume bench:
// notes when each request to the provider double (the `host` SEND_STAMPS_HOST) leaves the service, with the Twilio
// `Body` it carries, and appends `<epoch ms>\t<body>\t<kept|new>\t<ms>` lines to SEND_STAMPS_FILE. A request leaves
// when its bytes are handed to the operating system: at `end` when its connection is up (Node writes them to the
// kernel there), else once the new connection has taken them ('finish'). `kept` or `new`: on a kept-alive connection or
// a new one; the ms: from `end` to that moment (a request ended before its new connection was up waits for the
// handshake). The double's own arrival times are noted in the bench process, whose event loop may reach a request
// late on a loaded machine and bunch several arrivals into one instant; these are the service's.
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
      const handed = Date.now();
      const note = (how) => () => {
        const now = Date.now();
        lines.push(`${now}\t${body}\t${how}\t${now - handed}`);
      };
      const how = () => (this.reusedSocket ? 'kept' : 'new');
      if (this.socket && !this.socket.connecting) note(how())();
      else
        this.once('socket', (socket) => {
          if (socket.connecting) this.once('finish', note('new'));
          else note(how())();
        });
    }
    return end.call(this, chunk, ...rest);
  };
}
