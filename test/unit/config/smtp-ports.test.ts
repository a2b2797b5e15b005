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

describe('NOTICE_SMTP_URL', () => {
  it('takes smtp:// or smtps://, with allowPlaintext true or false, and refuses anything else at start', () => {
    for (const good of ['smtp://h:25?allowPlaintext=true', 'smtps://u:p@h', 'smtp://h?allowPlaintext=false'])
      expect(parseConfig({ TABLE_NAME: 't', NOTICE_SMTP_URL: good }).NOTICE_SMTP_URL, good).toBe(good);
    for (const bad of ['smtp://h?allowPlaintext=yes', 'http://h', 'h:25'])
      expect(() => parseConfig({ TABLE_NAME: 't', NOTICE_SMTP_URL: bad }), bad).toThrow(/NOTICE_SMTP_URL/);
  });
});
