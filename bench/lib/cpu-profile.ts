/** Reading V8 CPU profiles (`.cpuprofile`): self time per function and per module. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time (µs) per function and per module of one profile. */
export function selfTimes(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  // timeDeltas[i] is the time before sample i: the time of sample i is counted to the node sampled at i-1's end.
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + dt);
  }
  const fns = new Map<string, number>();
  const modules = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = shortUrl(url);
    const fn = `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const mod = moduleOf(url, functionName);
    modules.set(mod, (modules.get(mod) ?? 0) + us);
  }
  return { fns, modules };
}

export function shortUrl(url: string): string {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  for (const dir of ['/shared/', '/functions/', '/local/']) {
    const i = url.indexOf(dir);
    if (i >= 0) return url.slice(i + 1);
  }
  return url.replace(/^file:\/\//, '');
}

export function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const short = shortUrl(url);
  if (url.includes('/node_modules/')) {
    const parts = short.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (short.startsWith('node:')) return short.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  return short.split('/').slice(0, 2).join('/');
}

export const addInto = (into: Map<string, number>, from: Map<string, number>) => {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
};

/**
 * A profile written by ./profile-toggle.mjs, per `unit` (a message sent, an item answered): self time by module and
 * function (µs), and the stand-ins' calls it counted beside it (`<profile>.calls.json`).
 */
export function profileReport(path: string, sent: number, unit = 'message sent'): string[] {
  const { fns, modules } = selfTimes(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile);
  const calls = JSON.parse(readFileSync(`${path}.calls.json`, 'utf8')) as Record<string, { n: number }>;
  const busy = new Map<string, number>();
  addInto(busy, modules);
  for (const k of busy.keys()) if (k.startsWith('(idle)') || k === '(program)') busy.delete(k);
  const total = [...busy.values()].reduce((a, b) => a + b, 0);
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .filter(([k]) => !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `    ${(us / sent).toFixed(0).padStart(6)} µs  ${k}`);
  return [
    `  profile (${path}): ${(total / sent / 1000).toFixed(2)} ms of profiled CPU per ${unit} (idle and (program) left out)`,
    `  by module, µs per ${unit}:`,
    ...top(modules, 20),
    `  by function, µs per ${unit}:`,
    ...top(fns, 30),
    `  stand-in calls per ${unit}:`,
    ...Object.entries(calls)
      .sort((a, b) => b[1].n - a[1].n)
      .map(([k, v]) => `    ${(v.n / sent).toFixed(2).padStart(6)}  ${k}`),
  ];
}
