/** Credits are monthly, in UTC months. */

/** Storage key of the UTC month of `at`: `2026-11`. */
export function monthKey(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The contract's display form: `11/2026`. */
export function monthLabel(at: Date): string {
  return `${String(at.getUTCMonth() + 1).padStart(2, '0')}/${at.getUTCFullYear()}`;
}

/**
 * The day of the month item `month` (`2026-11`) that an event at `at` counts on: its UTC day when `at` falls in that
 * month, else the month's last day (a refund that closes a charge of an earlier month after the month ended).
 */
export function dayOfMonthFor(month: string, at: Date): number {
  if (monthKey(at) === month) return at.getUTCDate();
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
}
