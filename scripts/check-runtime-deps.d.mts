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
