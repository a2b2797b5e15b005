import { describe, expect, it } from 'vitest';
import { ProjectReadAhead, type Project } from '#shared/projects/index.ts';

const project = { projectId: 'prj_a', name: 'A' } as Project;

describe('projects read ahead for a request', () => {
  it('serve the request that read them, and no request after it', async () => {
    const ahead = new ProjectReadAhead();
    await ahead.around(async () => {
      expect(ahead.alone).toBe(true);
      ahead.hold('prj_a', project);
      ahead.hold('prj_gone', undefined);
      expect(ahead.take('prj_a')).toEqual({ found: true, project });
      expect(ahead.take('prj_gone')).toEqual({ found: true, project: undefined });
      expect(ahead.take('prj_other')).toEqual({ found: false });
      ahead.forget('prj_a');
      expect(ahead.take('prj_a')).toEqual({ found: false });
    });
    await ahead.around(async () => expect(ahead.take('prj_gone')).toEqual({ found: false }));
    expect(ahead.alone).toBe(false);
  });

  it('hold and serve nothing while two requests are served at once, until both are done', async () => {
    const ahead = new ProjectReadAhead();
    let release!: () => void;
    const first = ahead.around(async () => {
      ahead.hold('prj_a', project);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      // The second request may have held its own project meanwhile: whose it is cannot be told, so neither is served.
      return ahead.take('prj_a');
    });
    const second = ahead.around(async () => {
      expect(ahead.alone).toBe(false);
      ahead.hold('prj_a', { ...project, name: 'B' });
      return ahead.take('prj_a');
    });
    expect(await second).toEqual({ found: false });
    release();
    expect(await first).toEqual({ found: false });
    // Once none is left, the next request is alone again.
    await ahead.around(async () => {
      ahead.hold('prj_a', project);
      expect(ahead.take('prj_a')).toEqual({ found: true, project });
    });
  });

  it('a request that failed leaves nothing held', async () => {
    const ahead = new ProjectReadAhead();
    await expect(
      ahead.around(async () => {
        ahead.hold('prj_a', project);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await ahead.around(async () => expect(ahead.take('prj_a')).toEqual({ found: false }));
  });
});
