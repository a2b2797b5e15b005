import { describe, expect, it } from 'vitest';
import { messagingSettings } from '#shared/messaging/index.ts';

describe('SMTP_ALLOWED_PORTS', () => {
  it('defaults to the mail ports on AWS and to any port locally', () => {
    expect(messagingSettings.parse({}).smtpAllowedPorts).toEqual([25, 465, 587, 2525]);
    expect(messagingSettings.parse({ SWITCHBOARD_RUNTIME: 'local' }).smtpAllowedPorts).toBe('any');
  });

  it('takes a list or "any", and refuses anything else at start', () => {
    expect(messagingSettings.parse({ SMTP_ALLOWED_PORTS: '587, 2525' }).smtpAllowedPorts).toEqual([587, 2525]);
    expect(messagingSettings.parse({ SMTP_ALLOWED_PORTS: 'any' }).smtpAllowedPorts).toBe('any');
    for (const bad of ['25;6379', '0', '70000', ''])
      expect(() => messagingSettings.parse({ SMTP_ALLOWED_PORTS: bad }), bad).toThrow(/SMTP_ALLOWED_PORTS/);
  });
});
