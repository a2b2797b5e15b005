import { describe, expect, it } from 'vitest';
import { fakeRepo, importsIn } from '#test/support/architecture/repo.ts';
import {
  aliases,
  areaCycles,
  areaLayers,
  exportsOf,
  faces,
  facesExist,
  fileCycles,
  folderFloors,
  lazyModules,
  placeOf,
  selfExplaining,
  sharedFloors,
  sizes,
  staleExemptions,
  topLevelFunctions,
  trimmedFaces,
} from '#test/support/architecture/rules.ts';

/**
 * Each architecture rule, shown failing on a small made-up repository that breaks it (and passing on the same one
 * without the break), so no rule of architecture.test.ts is one that cannot fail.
 */

/** A made-up area `pets` (converted) and `toys` (listed as not converted), with a function that uses pets. */
const base: Record<string, string> = {
  'shared/kernel/ids.ts': 'export const newId = () => "x";',
  'shared/contract/routes.ts': "import { newId } from '../kernel/ids.ts';\nexport const routes = [newId()];",
  'shared/http/router.ts': "import { newId } from '../kernel/ids.ts';\nexport const route = newId;",
  'shared/pets/pet.ts': "import { newId } from '../kernel/ids.ts';\nexport interface Pet { id: string }",
  'shared/pets/adopt.ts':
    "import type { Pet } from './pet.ts';\nexport function makeAdopt(): Pet { return { id: '' }; }",
  'shared/pets/adapters/dynamo-pets.ts': "import type { Pet } from '../pet.ts';\nexport class DynamoPets {}",
  'shared/pets/api/routes.ts': "import { route } from '#shared/http/router.ts';\nexport const petRoutes = route;",
  'shared/pets/wiring.ts':
    "import { makeAdopt } from './adopt.ts';\nimport { DynamoPets } from './adapters/dynamo-pets.ts';\nexport function wirePets() {}",
  'shared/pets/index.ts': "export { wirePets } from './wiring.ts';\nexport type { Pet } from './pet.ts';",
  'shared/toys/index.ts': "export type Toy = 'ball';",
  'shared/toys/api/index.ts': 'export const toyRoutes = [];',
  'shared/toys/toy.ts': 'export const TOY = 1;',
  'functions/pets/handler.ts':
    "import { wirePets, type Pet } from '#shared/pets/index.ts';\nimport { TOY } from '#shared/toys/toy.ts';\nexport const handler = wirePets;",
  'local/main.ts': "import '#functions/pets/handler.ts';",
  'infra/stack.ts': "import { routes } from '#shared/contract/routes.ts';",
  'test/unit/pets/adopt.test.ts': "import { makeAdopt } from '#shared/pets/adopt.ts';",
};
const notYet = ['toys'];
const repoWith = (changes: Record<string, string>) => fakeRepo({ ...base, ...changes });

describe('architecture rules, each failing on a planted violation', () => {
  it('the made-up repository breaks no rule', () => {
    const repo = fakeRepo(base);
    for (const rule of [folderFloors, sharedFloors, areaLayers, facesExist, aliases, areaCycles, lazyModules])
      expect(rule(repo), rule.name).toEqual([]);
    for (const rule of [faces, trimmedFaces, sizes, selfExplaining, staleExemptions])
      expect(rule(repo, notYet), rule.name).toEqual([]);
    expect(fileCycles(repo, [])).toEqual([]);
  });

  it('reads every form of import, with the names taken, and none in comments', () => {
    const found = importsIn(
      'shared/x/a.ts',
      [
        "import middy, { type MiddlewareObj } from '@middy/core';",
        'import {',
        '  HttpError,',
        '  type ErrorDetail as Detail,',
        "} from '../../shared/http/errors.ts';",
        "import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';",
        "export { json } from './types.ts';",
        "export * from './all.ts';",
        "import * as z from '#shared/kernel/validation/zod.ts';",
        "let t: import('nodemailer').Transporter;",
        "type M = typeof import('./m.ts');",
        "import './register.ts';",
        "const sdk = await import('@aws-sdk/client-s3');",
        "/**\n * import { notFound } from '../http/errors.ts';\n */",
        "// import { x } from '../http/router.ts';",
      ].join('\n'),
    );
    expect(found.map((i) => [i.specifier, i.target, i.typeOnly, i.dynamic, i.names.join(',')])).toEqual([
      ['@middy/core', undefined, false, false, 'MiddlewareObj,default'],
      ['../../shared/http/errors.ts', 'shared/http/errors.ts', false, false, 'HttpError,ErrorDetail'],
      ['#shared/kernel/aws/dynamo-table.ts', 'shared/kernel/aws/dynamo-table.ts', true, false, 'DynamoTable'],
      ['./types.ts', 'shared/x/types.ts', false, false, 'json'],
      ['./all.ts', 'shared/x/all.ts', false, false, '*'],
      ['#shared/kernel/validation/zod.ts', 'shared/kernel/validation/zod.ts', false, false, '*'],
      ['./register.ts', 'shared/x/register.ts', false, false, ''],
      ['nodemailer', undefined, true, false, '*'],
      ['./m.ts', 'shared/x/m.ts', true, false, '*'],
      ['@aws-sdk/client-s3', undefined, false, true, '*'],
    ]);
  });

  it('places files in their folder, area and layer', () => {
    expect(placeOf('shared/pets/adapters/dynamo-pets.ts')).toEqual({
      folder: 'shared',
      top: 'pets',
      layer: 'adapters',
      isArea: true,
    });
    expect(placeOf('shared/pets/index.ts').layer).toBe('face');
    expect(placeOf('shared/pets/wiring.ts').layer).toBe('wiring');
    expect(placeOf('shared/pets/adoption-wiring.ts').layer).toBe('wiring');
    expect(placeOf('shared/pets/rewiring.ts').layer).toBe('core');
    expect(placeOf('shared/pets/inner/adoption-wiring.ts').layer).toBe('core');
    expect(placeOf('shared/pets/settings.ts').layer).toBe('settings');
    expect(placeOf('shared/pets/inner/index.ts').layer).toBe('core');
    expect(placeOf('shared/http/router.ts').isArea).toBe(false);
    expect(placeOf('console/src/main.tsx').folder).toBe('console');
  });

  it('folders: functions/ importing local/, infra/ importing an area, shared/ importing test/', () => {
    const repo = repoWith({
      'functions/pets/clock.ts': "import { main } from '#local/main.ts';",
      'infra/functions.ts': "import { wirePets } from '#shared/pets/index.ts';",
      'shared/pets/fixture.ts': "import { seed } from '#test/support/seed.ts';",
    });
    expect(folderFloors(repo)).toEqual([
      'functions/pets/clock.ts -> #local/main.ts (functions/ may not import local/)',
      'infra/functions.ts -> #shared/pets/index.ts (infra/ may not import shared/)',
      'shared/pets/fixture.ts -> #test/support/seed.ts (shared/ may not import test/)',
    ]);
  });

  it('shared floors: kernel importing an area, http importing the AWS SDK, a function importing openapi', () => {
    const repo = repoWith({
      'shared/kernel/bad.ts': "import type { Pet } from '../pets/index.ts';",
      'shared/http/s3.ts': "import { S3Client } from '@aws-sdk/client-s3';",
      'functions/pets/doc.ts': "import { buildOpenApiDocument } from '#shared/openapi/document.ts';",
    });
    expect(sharedFloors(repo)).toEqual([
      'functions/pets/doc.ts -> #shared/openapi/document.ts (the document is built over the areas, never under them)',
      'shared/http/s3.ts -> @aws-sdk/client-s3 (http/ speaks no AWS)',
      'shared/kernel/bad.ts -> ../pets/index.ts (kernel/ imports only kernel, contract)',
    ]);
  });

  it('layers: a use case importing its adapter or HTTP, an adapter importing api/, a file importing its own face', () => {
    const repo = repoWith({
      'shared/pets/adopt.ts':
        "import { DynamoPets } from './adapters/dynamo-pets.ts';\nimport middy from '@middy/core';",
      'shared/pets/adapters/dynamo-pets.ts': "import { petRoutes } from '../api/routes.ts';",
      'shared/pets/api/routes.ts': "import { wirePets } from '../index.ts';",
    });
    expect(areaLayers(repo)).toEqual([
      'shared/pets/adapters/dynamo-pets.ts -> ../api/routes.ts (adapters may not import api)',
      'shared/pets/adopt.ts -> ./adapters/dynamo-pets.ts (core may not import adapters)',
      'shared/pets/adopt.ts -> @middy/core (a use case takes ports, not clients)',
      'shared/pets/api/routes.ts -> ../index.ts (api may not import face)',
    ]);
  });

  it('faces: past a converted face from a function, a bench, another area or a foreign test; old rule for the rest', () => {
    const repo = repoWith({
      'functions/pets/store.ts': "import { DynamoPets } from '#shared/pets/adapters/dynamo-pets.ts';",
      'bench/pets.ts': "import { makeAdopt } from '#shared/pets/adopt.ts';",
      'shared/toys/toy.ts': "import type { Pet } from '../pets/pet.ts';",
      'test/unit/toys/toy.test.ts': "import { makeAdopt } from '#shared/pets/adopt.ts';",
      'shared/pets/play.ts': "import { TOY } from '../toys/toy.ts';",
    });
    expect(faces(repo, notYet)).toEqual([
      'bench/pets.ts -> #shared/pets/adopt.ts (only shared/pets/index.ts)',
      'functions/pets/store.ts -> #shared/pets/adapters/dynamo-pets.ts (only shared/pets/index.ts)',
      'shared/pets/play.ts -> ../toys/toy.ts (only shared/toys/index.ts or its api/index.ts (not converted yet))',
      'shared/toys/toy.ts -> ../pets/pet.ts (only shared/pets/index.ts)',
      'test/unit/toys/toy.test.ts -> #shared/pets/adopt.ts (only shared/pets/index.ts)',
    ]);
    // Converting toys makes its old exemption (functions/ reaching toy.ts) a violation too.
    expect(faces(repo, [])).toContain('functions/pets/handler.ts -> #shared/toys/toy.ts (only shared/toys/index.ts)');
  });

  it('trimmed faces: an export nobody takes, export *, a second face', () => {
    const repo = repoWith({
      'shared/pets/index.ts':
        "export { wirePets } from './wiring.ts';\nexport type { Pet } from './pet.ts';\nexport { makeAdopt } from './adopt.ts';\nexport * from './pet.ts';",
      'shared/pets/api/index.ts': "export { petRoutes } from './routes.ts';",
    });
    expect(trimmedFaces(repo, notYet)).toEqual([
      'shared/pets/api/index.ts (a second face: import the files, and export from shared/pets/index.ts)',
      'shared/pets/index.ts: export * (name each export)',
      'shared/pets/index.ts: makeAdopt (imported by nothing outside pets/)',
    ]);
    expect(
      exportsOf('export const a = 1;\nexport function b() {}\nexport { c as d, type E };\nexport interface F {}'),
    ).toEqual(['d', 'E', 'a', 'b', 'F']);
  });

  it('every area has a face', () => {
    const repo = fakeRepo({ ...base, 'shared/birds/bird.ts': 'export const BIRD = 1;' });
    expect(facesExist(repo)).toEqual(['shared/birds/ has no index.ts']);
  });

  it('cycles: two files importing each other (types too), and two areas', () => {
    const repo = repoWith({
      'shared/pets/pet.ts': "import type { Adopt } from './adopt.ts';\nexport interface Pet { id: string }",
      'shared/toys/index.ts': "import type { Pet } from '../pets/index.ts';",
      'shared/pets/play.ts': "import type { Toy } from '../toys/index.ts';",
    });
    expect(fileCycles(repo, [])).toEqual(['shared/pets/adopt.ts <-> shared/pets/pet.ts']);
    expect(fileCycles(repo, ['shared/pets/adopt.ts <-> shared/pets/pet.ts'])).toEqual([]);
    expect(areaCycles(repo)).toEqual(['pets <-> toys']);
  });

  it('sizes: a file over 400 lines, a function over 120', () => {
    const long = `export function makeEverything() {\n${'  step();\n'.repeat(130)}}\n`;
    const repo = repoWith({
      'shared/pets/adopt.ts': long,
      'shared/pets/pet.ts': '// line\n'.repeat(401),
      // Outside the areas too (a library, the runner, a test, a benchmark); a long function there is not a use case.
      'shared/kernel/ids.ts': '// line\n'.repeat(401),
      'local/main.ts': long + '// line\n'.repeat(300),
      'test/unit/pets/adopt.test.ts': '// line\n'.repeat(401),
      'test/e2e/pets-support.ts': '// line\n'.repeat(400),
      'bench/pets.ts': '// line\n'.repeat(401),
    });
    expect(sizes(repo, notYet)).toEqual([
      'bench/pets.ts: 401 lines (at most 400)',
      'local/main.ts: 432 lines (at most 400)',
      'shared/kernel/ids.ts: 401 lines (at most 400)',
      'shared/pets/adopt.ts: makeEverything is 132 lines (at most 120)',
      'shared/pets/pet.ts: 401 lines (at most 400)',
      'test/unit/pets/adopt.test.ts: 401 lines (at most 400)',
    ]);
    expect(
      topLevelFunctions('const a = (x) =>\n  x;\nexport async function b() {\n  return 1;\n}\nfunction c() {}\n'),
    ).toEqual([
      { name: 'a', lines: 2 },
      { name: 'b', lines: 3 },
      { name: 'c', lines: 1 },
    ]);
  });

  it('comments citing the contract, an issue or the benchmark log', () => {
    // Escaped (\u00a7 is the section sign, \u0020 a space, \u004d an M) so that this file passes
    // test/unit/comments.test.ts, which checks every line of the repository's source.
    const repo = repoWith({
      'shared/pets/adopt.ts':
        '// Refused (contract \u00a715).\n// See issue\u002040.\n// Measured in BENCH\u004dARKS.md.\nexport const a = 1;',
    });
    expect(selfExplaining(repo, notYet)).toEqual([
      'shared/pets/adopt.ts:1: // Refused (contract \u00a715).',
      'shared/pets/adopt.ts:2: // See issue\u002040.',
      'shared/pets/adopt.ts:3: // Measured in BENCH\u004dARKS.md.',
    ]);
  });

  it('a module loaded on first use somewhere, imported statically by a wiring file', () => {
    const repo = repoWith({
      'shared/pets/adapters/lazy-pets.ts': "export const lazyPets = () => import('./dynamo-pets.ts');",
      'shared/pets/wiring.ts': "import { DynamoPets } from './adapters/dynamo-pets.ts';\nexport function wirePets() {}",
    });
    expect(lazyModules(repo)).toEqual([
      'shared/pets/wiring.ts -> ./adapters/dynamo-pets.ts (loaded on first use elsewhere: import() it here too, or take it from the function)',
    ]);
  });

  it('a function climbing out of functions/ to reach shared/', () => {
    const repo = repoWith({ 'functions/pets/x.ts': "import { newId } from '../../shared/kernel/ids.ts';" });
    expect(aliases(repo)).toEqual(['functions/pets/x.ts -> ../../shared/kernel/ids.ts (use #shared/)']);
  });

  it('an area listed as not converted that meets every rule already, or that does not exist', () => {
    const repo = repoWith({
      'functions/pets/handler.ts': "import { wirePets, type Pet } from '#shared/pets/index.ts';",
    });
    expect(staleExemptions(repo, ['toys', 'pets', 'birds'])).toEqual(['pets', 'birds']);
    expect(staleExemptions(fakeRepo(base), ['toys'])).toEqual([]);
  });
});
