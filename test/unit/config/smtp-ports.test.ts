import { describe, expect, it } from 'vitest';
import { parseConfig } from '#shared/kernel/config.ts';

describe('SMTP_ALLOWED_PORTS', () => {
  it('defaults to the mail ports on AWS and to any port locally', () => {
    expect(parseConfig({ TABLE_NAME: 't' }).smtpAllowedPorts).toEqual([25, 465, 587, 2525]);
    expect(parseConfig({ TABLE_NAME: 't', SWITCHBOARD_RUNTIME: 'local' }).smtpAllowedPorts).toBe('any');
  });

  it('takes a list or "any", and refuses anything else at start', () => {
    expect(parseConfig({ TABLE_NAME: 't', SMTP_ALLOWED_PORTS: '587, 2525' }).smtpAllowedPorts).toEqual([587, 2525]);
    expect(parseConfig({ TABLE_NAME: 't', SMTP_ALLOWED_PORTS: 'any' }).smtpAllowedPorts).toBe('any');
    for (const bad of ['25;6379', '0', '70000', ''])
      expect(() => parseConfig({ TABLE_NAME: 't', SMTP_ALLOWED_PORTS: bad }), bad).toThrow(/SMTP_ALLOWED_PORTS/);
  });
});
