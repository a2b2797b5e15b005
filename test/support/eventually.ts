/**
 * Polls `check` until it returns a value other than undefined or false, and returns that value; fails after
 * `timeoutMs`, naming `what` it waited for. Every 50 ms at first, then less often, up to every 250 ms: most checks
 * call the service (an admin read: HTTP, DynamoDB, JSON on both sides), and a wait of seconds at 50 ms cost the
 * suite's two cores more than the condition's later sighting costs its file (bench/history/2026-11-test-suite-time.md).
 */
// Deadlines on the monotonic clock: a wall-clock step (NTP) would end a wait early or stretch it.
const monotonic = () => performance.now();

export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = monotonic() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(pause * 1.5, 250)) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (monotonic() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Checks that `assertion` holds for all of `ms` (an absence: no second event, no delivery to the wrong webhook), and
 * fails as soon as it does not. An absence can only be observed over time; this is the one place that waits for
 * nothing to happen, every 100 ms, so a regression shows at once rather than after the whole wait.
 */
export async function consistently(assertion: () => unknown | Promise<unknown>, ms = 500): Promise<void> {
  const deadline = monotonic() + ms;
  for (;;) {
    await assertion();
    if (monotonic() >= deadline) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until `read()` has given the same value for `quietMs` (a count of writes that stopped growing: every write a
 * burst caused has landed), and returns it; fails after `timeoutMs`. For work that ends with no event to wait on.
 */
export async function settled<T>(read: () => T | Promise<T>, quietMs = 300, timeoutMs = 10_000): Promise<T> {
  const deadline = monotonic() + timeoutMs;
  let value = await read();
  let since = monotonic();
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await read();
    if (now !== value) [value, since] = [now, monotonic()];
    else if (monotonic() - since >= quietMs) return value;
    if (monotonic() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for the value to settle`);
  }
}
