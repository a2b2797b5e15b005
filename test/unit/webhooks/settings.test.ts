import { describe, expect, it } from 'vitest';
import { webhookSettings } from '#shared/webhooks/settings.ts';

describe('NOTICE_SMTP_URL', () => {
  it('takes smtp:// or smtps://, with allowPlaintext true or false, and refuses anything else at start', () => {
    for (const good of ['smtp://h:25?allowPlaintext=true', 'smtps://u:p@h', 'smtp://h?allowPlaintext=false'])
      expect(webhookSettings.parse({ NOTICE_SMTP_URL: good }).NOTICE_SMTP_URL, good).toBe(good);
    for (const bad of ['smtp://h?allowPlaintext=yes', 'http://h', 'h:25'])
      expect(() => webhookSettings.parse({ NOTICE_SMTP_URL: bad }), bad).toThrow(/NOTICE_SMTP_URL/);
  });
});
