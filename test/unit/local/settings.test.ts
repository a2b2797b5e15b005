import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, settingNames as kernelSettingNames } from '#shared/kernel/config.ts';
import { environmentBeforeStart } from '#local/function-wiring.ts';
import { AREA_SETTINGS, checkSettings, settingNames } from '#local/settings.ts';

const areasWithSettings = readdirSync(new URL('../../../shared/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .filter((entry) => readdirSync(new URL(`../../../shared/${entry.name}/`, import.meta.url)).includes('settings.ts'))
  .map((entry) => entry.name)
  .filter((name) => name !== 'kernel');

describe("the local runner's catalog of settings", () => {
  it('lists every area that declares settings (shared/<area>/settings.ts)', () => {
    expect(areasWithSettings).toContain('pdf');
    expect(Object.keys(AREA_SETTINGS).sort()).toEqual(areasWithSettings.sort());
  });

  it('names every setting once: the kernel keeps none an area declares', () => {
    expect(new Set(settingNames).size).toBe(settingNames.length);
    expect(settingNames).toEqual(expect.arrayContaining([...kernelSettingNames, 'OCR_ENGINE', 'OCR_DPI']));
    expect(kernelSettingNames).not.toContain('OCR_ENGINE');
  });

  it("refuses an area's bad setting by name, as the kernel's", () => {
    expect(() => checkSettings({ TABLE_NAME: 't' })).not.toThrow();
    expect(() => checkSettings({ TABLE_NAME: 't', OCR_DPI: '7' })).toThrow(/^Invalid configuration: OCR_DPI: /);
    expect(() => checkSettings({ TABLE_NAME: 't', OCR_ENGINE: 'paper' })).toThrow(/OCR_ENGINE: /);
    expect(() => parseConfig({})).toThrow(/^Invalid configuration: TABLE_NAME: /);
  });
});

describe('the settings npm start checks before it starts anything', () => {
  it("refuses the caller's bad setting, and none the runner sets itself", () => {
    // The runner's own wiring (table, endpoints, queues, keys it generates) is filled in: an empty environment passes,
    // and what the caller says for a variable the runner sets is replaced, as the start replaces it.
    expect(() => checkSettings(environmentBeforeStart({}))).not.toThrow();
    expect(() => checkSettings(environmentBeforeStart({ DYNAMODB_ENDPOINT: 'not a url' }))).not.toThrow();
    expect(() => checkSettings(environmentBeforeStart({ ADMIN_KEY: 'short' }))).toThrow(
      /^Invalid configuration: ADMIN_KEY: /,
    );
    expect(() => checkSettings(environmentBeforeStart({ SECRETS_KEY: 'short' }))).toThrow(/SECRETS_KEY: /);
    expect(() => checkSettings(environmentBeforeStart({ WEBHOOK_RETRY_SCHEDULE: 'soon' }))).toThrow(
      /^Invalid configuration: WEBHOOK_RETRY_SCHEDULE: /,
    );
    expect(() => checkSettings(environmentBeforeStart({ OCR_DPI: '7' }))).toThrow(/^Invalid configuration: OCR_DPI: /);
  });

  it('sets every variable the start wires for the functions, with a value of the same shape', () => {
    const env = environmentBeforeStart({ TABLE_NAME: 'mine' });
    expect(env.TABLE_NAME).not.toBe('mine');
    expect(env.SWITCHBOARD_RUNTIME).toBe('local');
    for (const name of [
      'QUEUE_URL_EVENTS',
      'QUEUE_URL_OUTBOUND',
      'BUCKET_TRANSFER',
      'BUCKET_KNOWLEDGE',
      'SES_ENDPOINT',
    ])
      expect(env[name], name).toBeTruthy();
  });
});
