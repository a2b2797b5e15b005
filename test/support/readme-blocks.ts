import { spawn } from 'node:child_process';

/** A fenced code block of a Markdown file: its language, its text (indentation of a list item removed), its line. */
export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    // A fence without a language is a block too (lang ''): a test of every block must see it.
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    if (j === lines.length) throw new Error(`unclosed code block at line ${i + 1}`);
    blocks.push({ lang: open[2] ?? '', code: `${body.join('\n')}\n`, line: i + 1 });
    i = j;
  }
  return blocks;
}

/**
 * A bash session a reader would have open: blocks run one after another in the same shell, so the variables one
 * sets are there for the next. `set -e` ends the session at the first command that fails, and `curl` fails on an
 * HTTP error (while still printing the answer's body): a block that goes wrong cannot pass unnoticed.
 */
export function shellSession(options: { cwd: string; env: Record<string, string | undefined> }) {
  const bash = spawn('bash', ['--noprofile', '--norc'], {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let exited: number | null | undefined;
  const waiting = new Set<() => void>();
  const wake = () => {
    for (const w of waiting) w();
  };
  bash.stdout.on('data', (d) => {
    output += d;
    wake();
  });
  bash.stderr.on('data', (d) => {
    output += d;
    wake();
  });
  bash.once('exit', (code) => {
    exited = code;
    wake();
  });
  bash.stdin.write('set -e\ncurl() { command curl --fail-with-body "$@"; }\n');
  let blockNo = 0;

  return {
    /** Runs `code`; resolves with what it printed, rejects (with the output) if the session ended or timed out. */
    async run(code: string, timeoutMs = 60_000): Promise<string> {
      const marker = `@@block-${++blockNo}-done@@`;
      const from = output.length;
      bash.stdin.write(`${code}\nprintf '\\n%s\\n' '${marker}'\n`);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = output.indexOf(`\n${marker}\n`, from);
        if (end >= 0) return output.slice(from, end);
        if (exited !== undefined)
          throw new Error(
            `the shell ended (exit ${exited}) in this block:\n${code}\n--- output:\n${output.slice(from)}`,
          );
        if (Date.now() > deadline)
          throw new Error(`block still running after ${timeoutMs} ms:\n${code}\n--- output:\n${output.slice(from)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          waiting.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        waiting.clear();
      }
    },
    /** A variable of the session, as `echo "$NAME"` prints it. */
    async variable(name: string): Promise<string> {
      return (await this.run(`printf '%s' "$${name}"`)).replace(/^\n/, '');
    },
    close() {
      bash.stdin.end();
      bash.kill();
    },
  };
}
