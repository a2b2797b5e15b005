import { describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';
import { CHECKED, checkedFiles, outsideReferences } from '../support/outside-references.ts';

/**
 * The repository explains itself: no comment, test name, doc or README line sends the reader to a contract section,
 * an issue or the benchmark log (test/support/outside-references.ts says what is checked and what is left out).
 */
describe('comments and docs explain themselves', () => {
  it('no section sign, issue number or benchmark-log citation in the source folders, docs/ or the README', () => {
    const files = checkedFiles(projectRoot);
    expect(Object.keys(files).length).toBeGreaterThan(500);
    expect(outsideReferences(files)).toEqual([]);
  });

  it('every folder it names exists', () => {
    for (const path of CHECKED) expect(Object.keys(checkedFiles(projectRoot, [path])).length, path).toBeGreaterThan(0);
  });

  // The planted lines are escaped (\u00a7 the section sign, \u0020 a space, \u004d an M) so that this file passes
  // the check above.
  it('fails naming file, line and kind for each planted citation', () => {
    expect(
      outsideReferences({
        'shared/pets/adopt.ts':
          'export const a = 1;\n// Refused (contract \u00a715).\n// See issue\u002040 and Issue #\u00332.\n// Measured in BENCH\u004dARKS.md.\n// As the contract\u0020section 11 and spec\u0020sections 1-2 say.',
        'docs/pets.md':
          'RFC 5321 \u00a74.5.3.1.10 says so.\nFigures: [the log](../BENCH\u004dARKS.md), issues\u00202 and 3.',
      }),
    ).toEqual([
      'shared/pets/adopt.ts:2: a section sign: // Refused (contract \u00a715).',
      'shared/pets/adopt.ts:3: an issue number: // See issue\u002040 and Issue #\u00332.',
      'shared/pets/adopt.ts:4: the benchmark log: // Measured in BENCH\u004dARKS.md.',
      'shared/pets/adopt.ts:5: a section of the contract or spec: // As the contract\u0020section 11 and spec\u0020sections 1-2 say.',
      'docs/pets.md:1: a section sign: RFC 5321 \u00a74.5.3.1.10 says so.',
      'docs/pets.md:2: an issue number: Figures: [the log](../BENCH\u004dARKS.md), issues\u00202 and 3.',
    ]);
  });

  it('lets a link to the benchmark log, and its file name as a quoted path, through', () => {
    expect(
      outsideReferences({
        'README.md': '- [BENCH\u004dARKS.md](BENCH\u004dARKS.md): today\u2019s figures.',
        'test/unit/docs-links.test.ts': "  'BENCH\u004dARKS.md',",
      }),
    ).toEqual([]);
  });
});
