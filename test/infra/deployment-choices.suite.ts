import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnResourceJson, PolicyStatementJson } from '#local/bundles/local-deployment.ts';
import { reasons } from '#infra/acknowledgements.ts';
import { projectRoot, reachesTesseract } from '#infra/bundling.ts';
import { functionSpecs } from '#infra/functions.ts';
import { settingsFromContext } from '#infra/settings.ts';
import { defaultSynth, synth, type Synthesized } from './synth.ts';

/** Choices a deployment makes (infra/settings.ts) and what they change in what is uploaded and granted. */
let textract: Synthesized;
let tesseract: Synthesized;
beforeAll(() => {
  textract = defaultSynth();
  // The second synth also carries the one-deploy setting of an index replacement (a synth costs minutes here).
  tesseract = synth({ settings: { ocrEngine: 'tesseract', keepPreviousConversationIndex: true } });
}, 600_000);

const fnProps = (s: Synthesized, fn: string) => {
  const id = s.stack.getLogicalId(s.stack.functions[fn]!.node.defaultChild as never);
  return s.template.toJSON().Resources[id].Properties;
};
const roleStatements = (s: Synthesized, fn: string) => {
  const roleId = s.stack.getLogicalId(s.stack.roles[fn]!.node.defaultChild as never);
  return Object.values(s.template.toJSON().Resources as Record<string, CfnResourceJson>)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties?.Roles ?? []).some((x) => x.Ref === roleId))
    .flatMap((r): PolicyStatementJson[] => r.Properties?.PolicyDocument?.Statement ?? []);
};

describe('OCR engine', () => {
  it('defaults to Textract on AWS: the OCR functions (extract, ingest) ship no tesseract, are told so and may call Textract', () => {
    expect(settingsFromContext({}).ocrEngine).toBe('textract');
    for (const fn of ['extract', 'ingest']) {
      const bundle = textract.stack.bundles.get(fn)!;
      expect(
        bundle.shipped.filter((p) => p.includes('tesseract')),
        fn,
      ).toEqual([]);
      expect(existsSync(join(bundle.dir, 'node_modules', 'tesseract.js')), fn).toBe(false);
      expect(existsSync(join(bundle.dir, 'node_modules', '@tesseract.js-data')), fn).toBe(false);
      expect(fnProps(textract, fn).Environment.Variables.OCR_ENGINE, fn).toBe('textract');
      expect(
        roleStatements(textract, fn).some((s) => [s.Action].flat().includes('textract:DetectDocumentText')),
        fn,
      ).toBe(true);
    }
  });

  it('with ocrEngine tesseract, the OCR functions (extract, ingest) ship tesseract.js and its language data, and Textract is not granted', () => {
    for (const fn of ['extract', 'ingest']) {
      const bundle = tesseract.stack.bundles.get(fn)!;
      for (const pkg of ['tesseract.js', 'tesseract.js-core', '@tesseract.js-data/por', '@tesseract.js-data/eng'])
        expect(existsSync(join(bundle.dir, 'node_modules', pkg, 'package.json')), `${fn}: ${pkg}`).toBe(true);
      expect(fnProps(tesseract, fn).Environment.Variables.OCR_ENGINE, fn).toBe('tesseract');
      expect(JSON.stringify(roleStatements(tesseract, fn)), fn).not.toContain('textract:');
    }
  });

  it("the engines' bundles differ only where tesseract.js is reached: refused in every Textract bundle, not in its Tesseract twin", () => {
    // Both engines' bundles come from one esbuild context (infra/bundling.ts buildBothEngines) or from two builds:
    // either way no function may carry the other engine's resolution, and the rest must be the same bytes.
    // Each bundle's own files (the shipped packages under node_modules/ aside), relative to its folder.
    const code = (dir: string) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(dir, join(e.parentPath, e.name)))
        .filter((f) => !f.split(sep).includes('node_modules'))
        .sort();
    const refusal = 'tesseract.js is not in this deployment';
    const ocr = functionSpecs()
      .filter((s) => s.ocr)
      .map((s) => s.fn);
    expect(ocr.length).toBeGreaterThan(1);
    for (const [fn, a] of textract.stack.bundles) {
      const b = tesseract.stack.bundles.get(fn)!;
      expect(a.unbundled, fn).not.toContain('tesseract.js');
      if (ocr.includes(fn)) {
        expect(reachesTesseract(a), fn).toBe(true);
        expect(b.unbundled, fn).toContain('tesseract.js');
      }
      if (reachesTesseract(a)) {
        // (A function that only passes by the OCR module, unused, drops the external import and keeps the refusal.)
        expect(reachesTesseract(b), fn).toBe(false);
        const js = (dir: string) =>
          code(dir)
            .filter((f) => f.endsWith('.mjs'))
            .map((f) => readFileSync(join(dir, f), 'utf8'))
            .join('\n');
        expect(js(a.dir).includes(refusal), fn).toBe(true);
        expect(js(b.dir).includes(refusal), fn).toBe(false);
      } else {
        expect(code(b.dir), fn).toEqual(code(a.dir));
        const differing = code(a.dir).filter((f) => !readFileSync(join(a.dir, f)).equals(readFileSync(join(b.dir, f))));
        expect(differing, fn).toEqual([]);
      }
    }
  });

  it('refuses an engine it does not know', () => {
    expect(() => settingsFromContext({ ocrEngine: 'cloud-vision' })).toThrow(/ocrEngine/);
  });
});

describe('replacing the conversation index', () => {
  const tableOf = (s: Synthesized) =>
    Object.values(s.template.toJSON().Resources as Record<string, CfnResourceJson>).find(
      (r) => r.Type === 'AWS::DynamoDB::Table',
    )!.Properties as { GlobalSecondaryIndexes: { IndexName: string; Projection: { ProjectionType: string } }[] };
  const queried = (s: Synthesized, fn: string) =>
    roleStatements(s, fn)
      .filter((st) => [st.Action].flat().includes('dynamodb:Query'))
      .flatMap((st) => [st.Resource].flat())
      .map((r) => JSON.stringify(r).match(/index\/(gsi\d)/)?.[1])
      .filter(Boolean);

  it('a deployment has the keys-only index alone; one keeping the previous index has both, and may query both', () => {
    const indexes = (s: Synthesized) =>
      tableOf(s)
        .GlobalSecondaryIndexes.map((g) => `${g.IndexName}:${g.Projection.ProjectionType}`)
        .sort();
    expect(indexes(textract)).toEqual(['gsi1:ALL', 'gsi3:KEYS_ONLY', 'gsi4:KEYS_ONLY']);
    expect(indexes(tesseract)).toEqual(['gsi1:ALL', 'gsi2:ALL', 'gsi3:KEYS_ONLY', 'gsi4:KEYS_ONLY']);
    expect(queried(textract, 'conversations')).toEqual(['gsi4']);
    expect(queried(tesseract, 'conversations')).toEqual(['gsi4', 'gsi2']);
  });
});

describe('long routes and provider callbacks', () => {
  it("the long routes and the provider callbacks have the plan's reserved concurrency; the short routes and workers none", () => {
    for (const fn of ['completion', 'chat-completions', 'extract', 'inbound-twilio', 'inbound-whatsapp']) {
      expect(textract.stack.plan.reservedConcurrency[fn], fn).toBeGreaterThan(0);
      expect(fnProps(textract, fn).ReservedConcurrentExecutions, fn).toBe(textract.stack.plan.reservedConcurrency[fn]);
    }
    for (const fn of ['health', 'admin', 'send', 'search', 'fanout', 'deliver'])
      expect(fnProps(textract, fn).ReservedConcurrentExecutions, fn).toBeUndefined();
    textract.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Switchboard completion',
      ReservedConcurrentExecutions: Match.anyValue(),
    });
  });
});

describe('acknowledgements', () => {
  it('the WAF acknowledgement points at nothing that does not exist', () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    if (/README/.test(reasons.waf)) expect(readme).toMatch(/web ACL|WAF/i);
    expect(reasons.waf).toMatch(/associate-web-acl/);
  });
});
