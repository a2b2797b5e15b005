/**
 * Rounds of HTTP scenarios against one in-process service, for the benchmarks that compare routes with each other in
 * the same run (bench/chat-completions.ts, bench/ai-ecosystem.ts).
 */
import { type LoadResult, load } from './harness.ts';

/** One request, repeated: its route and body, and whether the time to its first byte is what is measured. */
export interface Scenario {
  path: string;
  body: string;
  firstByte: boolean;
}

/** A load result with the service's CPU time per request (this process holds the service, dynalite and the double). */
export type Measured = LoadResult & { cpuMsPerRequest: number };

/**
 * Each scenario at 1 and then 16 connections for `seconds`, `rounds` times; rounds alternate the scenarios' order.
 * Before them, one warm-up of each at 16 connections, not recorded (the SDK + dynalite path runs at about half speed
 * for its first seconds). Results by `<scenario> | <connections>`, a round each; a scenario answered with anything but
 * 200 stops the run.
 */
export async function scenarioRounds(options: {
  baseUrl: string;
  headers: Record<string, string>;
  scenarios: Record<string, Scenario>;
  seconds: number;
  rounds: number;
}): Promise<Record<string, Measured[]>> {
  const { baseUrl, headers, scenarios, seconds, rounds } = options;
  const measure = async (name: string, connections: number, warmupSeconds = 0.5): Promise<Measured> => {
    const s = scenarios[name]!;
    const cpuBefore = process.cpuUsage();
    const result = await load({
      url: `${baseUrl}${s.path}`,
      method: 'POST',
      headers,
      body: s.body,
      connections,
      seconds,
      warmupSeconds,
      firstByte: s.firstByte,
    });
    if (result.errors || Object.keys(result.statuses).some((st) => st !== '200'))
      throw new Error(`${name}: unexpected answers ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
    const cpu = process.cpuUsage(cpuBefore);
    return { ...result, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / result.allRequests };
  };

  for (const name of Object.keys(scenarios)) await measure(name, 16, 1);
  const results: Record<string, Measured[]> = {};
  for (let round = 0; round < rounds; round++) {
    const order = Object.keys(scenarios);
    if (round % 2 === 1) order.reverse();
    for (const connections of [1, 16]) {
      for (const name of order) {
        const key = `${name} | ${connections}`;
        results[key] = [...(results[key] ?? []), await measure(name, connections)];
      }
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  return results;
}
