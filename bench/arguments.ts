import { resolve } from 'node:path';

/**
 * The command-line arguments of a benchmark, one at a time: each with
 * `value()`, which takes the argument after it (an option's value) and
 * fails, naming the option, when there is none.
 */
export function* benchArguments(argv: readonly string[]): Generator<{ arg: string; value: () => string }> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    yield {
      arg,
      value: () => {
        const v = argv[++i];
        if (v === undefined) throw new Error(`${arg} needs a value`);
        return v;
      },
    };
  }
}

/** The arguments `[GRAPH] [--runs N]` of a benchmark that times one graph: the graph's path (resolved) and the runs. */
export function graphAndRuns(argv: readonly string[], defaultPath: string, defaultRuns: number): { path: string; runs: number } {
  let path = defaultPath;
  let runs = defaultRuns;
  for (const { arg, value } of benchArguments(argv)) {
    if (arg === '--runs') runs = Number(value());
    else if (!arg.startsWith('--')) path = resolve(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  return { path, runs };
}
