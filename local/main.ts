import { STAND_IN_SERVICES, standInPortSetting } from './aws/stand-ins.ts';
import { environmentBeforeStart } from './function-wiring.ts';
import type { RunningService } from './service.ts';
import { flushCompileCache } from 'node:module';
import { resolve } from 'node:path';
import { claimDataDir, portSetting, probePorts, StartupError } from './startup-errors.ts';

/** `npm start`: the whole service on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}. */
const started = performance.now();
let service: RunningService;
try {
  // Every setting is checked before anything starts (the stand-ins, the threads, the functions' cold starts), so a
  // bad one is refused at once; the runner itself is loaded only then. The data folder is claimed and let go (the
  // start claims it again for as long as it runs), and so is each fixed port: one that cannot be used is refused
  // before the settings' check.
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const ports = {
    port: portSetting('PORT', process.env.PORT, 3000),
    smtpInboundPort: portSetting('SMTP_INBOUND_PORT', process.env.SMTP_INBOUND_PORT, 2525),
    standIns: Object.fromEntries(
      STAND_IN_SERVICES.map((name) => [
        name,
        portSetting(standInPortSetting(name), process.env[standInPortSetting(name)], 0),
      ]),
    ),
  };
  claimDataDir(dataDir).release();
  await probePorts({
    PORT: ports.port,
    SMTP_INBOUND_PORT: ports.smtpInboundPort,
    ...Object.fromEntries(STAND_IN_SERVICES.map((name) => [standInPortSetting(name), ports.standIns[name] ?? 0])),
  });
  (await import('./settings.ts')).checkSettings(environmentBeforeStart(process.env));
  const { startService } = await import('./service.ts');
  service = await startService({
    dataDir,
    port: ports.port,
    smtpInboundPort: ports.smtpInboundPort,
    awsStandIns: {
      ports: ports.standIns,
      ...(process.env.LOCAL_SES_RELAY_SMTP_URL ? { sesRelaySmtpUrl: process.env.LOCAL_SES_RELAY_SMTP_URL } : {}),
    },
  });
} catch (error) {
  // A setting to change: one line that names it, no stack. Anything else is a bug, reported with its stack.
  const setting = settingProblem(error);
  if (setting) console.error(`Switchboard could not start. ${setting}`);
  else console.error('Switchboard could not start:', error);
  process.exit(1);
}
const ms = Math.round(performance.now() - started);
// What the start compiled goes into V8's compile cache (NODE_COMPILE_CACHE) now: Node writes it only when a process
// exits by itself, and a service killed (a test's SIGKILL, a crash, a closed terminal) never did, so every start
// compiled every module again (~0.5 s of CPU on one event loop, ~2 s with the threads). Each thread flushes its own.
flushCompileCache();

console.log(`Switchboard is running (ready in ${ms} ms)
  Base URL:  ${service.baseUrl}
  Admin key: ${service.adminKey}
  Console:   ${service.baseUrl}/console (sign in with the admin key)
  API docs:  ${service.baseUrl}/docs
  Inbound mail: smtp://127.0.0.1:${service.smtpPort}
  AWS stand-ins: ${service.baseUrl}/local/aws
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

/**
 * The one line to print for a failure the user fixes with a setting: a {@link StartupError}, or a setting the
 * functions refused when they read their configuration (on whichever thread loaded them first).
 */
function settingProblem(error: unknown): string | undefined {
  if (error instanceof StartupError) return error.message;
  const invalid = /Invalid configuration: ([^\n]+)/.exec(error instanceof Error ? error.message : String(error));
  return invalid ? `A setting is not valid: ${invalid[1]}` : undefined;
}
