import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THROTTLES_FILE_ENV } from '#local/throttle-rules.ts';

/**
 * A throttle file for a running service (local/throttle.ts): start the service with `env`, then `arm` the rules a
 * test needs (`table:RL#*`, `gsi1:CREDIT_SWEEP*`, `queue:switchboard-events`) and `clear` them; the stand-ins read the
 * file at every call.
 */
export function throttleFile() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-throttles-'));
  const file = join(dir, 'throttles');
  const write = (rules: string) => {
    // Whole or not at all: the stand-ins read the file at every call.
    writeFileSync(`${file}.next`, rules);
    renameSync(`${file}.next`, file);
  };
  write('');
  return {
    env: { [THROTTLES_FILE_ENV]: file },
    arm: (...rules: string[]) => write(rules.join('\n')),
    clear: () => write(''),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
