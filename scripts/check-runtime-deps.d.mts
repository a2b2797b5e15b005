/** The check's verdict from npm's two answers (`undefined`: the registry did not answer that one). */
export function verdict(input: {
  audit:
    | {
        metadata: { vulnerabilities: { high?: number; critical?: number } };
        vulnerabilities?: Record<string, { severity: string }>;
      }
    | undefined;
  outdated: Record<string, { current?: string; latest?: string }> | undefined;
  allow: Record<string, { lag: 'minor' | 'major'; why?: string }>;
}): { warnings: string[]; failures: string[]; summary: string };

/** The lock file's packages under an AGPL, GPL or SSPL licence (or none declared), development tools included. */
export function copyleftPackages(
  lock: { packages?: Record<string, { license?: string; link?: boolean }> },
  licenceOf: (path: string) => string | undefined,
): { checked: number; copyleft: string[] };

/** The licence an installed package's package.json declares, by its path in the lock file. */
export function installedLicence(root: string): (path: string) => string | undefined;

/** Whether an SPDX licence expression lets the project use the package (no copyleft on the side it takes). */
export function permitted(expression: string): boolean;
