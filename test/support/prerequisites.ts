import { describe, it } from 'vitest';

/**
 * Something a test needs from the machine rather than from the repository (a browser, a font, traffic recorded by an
 * earlier run, an interpreter): present or not, and when not, what is missing and how to get it.
 */
export interface Prerequisite {
  present: boolean;
  /** What is missing and how to get it: "no Chromium at /usr/bin/chromium; apt-get install chromium". */
  missing: string;
}

/**
 * Under CI (`CI` set, and not "false" or "0") a missing prerequisite fails: a check that skipped there would let a
 * regression pass with the suite green. Anywhere else it skips, with the reason in the test's title.
 */
export const inCI = Boolean(process.env.CI) && !['false', '0'].includes(process.env.CI!.toLowerCase());

/** `describe` when the prerequisite is present; otherwise one failing test under CI, a skipped suite elsewhere. */
export function describeNeeding(prerequisite: Prerequisite, name: string, body: () => void): void {
  if (prerequisite.present) describe(name, body);
  else if (inCI) describe(name, () => it('has what it needs on this machine', () => failMissing(prerequisite)));
  else describe.skip(`${name} (skipped: ${prerequisite.missing})`, body);
}

/** `it` when the prerequisite is present; otherwise a failing test under CI, a skipped one elsewhere. */
export function itNeeding(
  prerequisite: Prerequisite,
  name: string,
  body: () => unknown | Promise<unknown>,
  timeout?: number,
): void {
  if (prerequisite.present) it(name, body, timeout);
  else if (inCI) it(name, () => failMissing(prerequisite));
  else it.skip(`${name} (skipped: ${prerequisite.missing})`, body);
}

function failMissing(prerequisite: Prerequisite): never {
  throw new Error(
    `${prerequisite.missing} (CI=${process.env.CI}: a missing prerequisite fails the run instead of skipping)`,
  );
}
