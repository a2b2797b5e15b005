import { startService } from './service.ts';

/** `npm start`: the whole service on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}. */
const started = performance.now();
const service = await startService({ smtpInboundPort: Number(process.env.SMTP_INBOUND_PORT ?? 2525) });
const ms = Math.round(performance.now() - started);

console.log(`Switchboard is running (ready in ${ms} ms)
  Base URL:  ${service.baseUrl}
  Admin key: ${service.adminKey}
  Inbound mail: smtp://127.0.0.1:${service.smtpPort}
  Data:      ${service.dataDir}
Try: curl -s ${service.baseUrl}/healthz`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log('Stopping...');
    service.stop().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
