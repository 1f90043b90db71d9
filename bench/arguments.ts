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
