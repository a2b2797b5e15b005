/** Credits are monthly, in UTC months. */

/** Storage key of the UTC month of `at`: `2026-11`. */
export function monthKey(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The contract's display form: `11/2026`. */
export function monthLabel(at: Date): string {
  return `${String(at.getUTCMonth() + 1).padStart(2, '0')}/${at.getUTCFullYear()}`;
}
