import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, settingNames as kernelSettingNames } from '#shared/kernel/config.ts';
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
