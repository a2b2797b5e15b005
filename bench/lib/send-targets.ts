/** What the send benchmarks send to: a project's sandbox channels, ready for the full send path. */
import { adminApi } from './harness.ts';

export interface SendTarget {
  channelId: string;
  /** The channel's custom token. */
  token: string;
}

/**
 * A project on `svc` with a sandbox SMS and a sandbox WhatsApp channel (credits for any run), a custom token each.
 * The WhatsApp contact 5511988887777 writes first, so its window is open and a send passes every check; the window
 * opens once the inbound worker has recorded that message, so this resolves when a send to it is accepted.
 */
export async function sendTargets(svc: { baseUrl: string; adminKey: string }) {
  const admin = adminApi(svc);
  const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
  const make = async (type: 'sms' | 'whatsapp', address: string): Promise<SendTarget> => {
    const channel = await admin('POST', `/projects/${projectId}/channels`, {
      type,
      name: `bench ${type}`,
      address,
      credits: 1_000_000_000,
    });
    const { token } = await admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: channel.channelId,
    });
    return { channelId: channel.channelId as string, token: token as string };
  };
  const sms = await make('sms', '+5511999990000');
  const whatsapp = await make('whatsapp', '5511999990001');
  await admin('POST', `/projects/${projectId}/channels/${whatsapp.channelId}/sandbox/inbound`, {
    from: '5511988887777',
    text: 'Oi',
  });
  for (let i = 0; ; i++) {
    const res = await fetch(`${svc.baseUrl}/api/integration/generic`, {
      method: 'POST',
      headers: { authorization: `Bearer ${whatsapp.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '5511988887777', message: 'warm' }),
    });
    if (res.status < 300) break;
    if (i > 100) throw new Error(`the whatsapp window did not open: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { sms, whatsapp };
}
