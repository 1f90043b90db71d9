/** How a worker thread's failure travels to the waiting threads: a short text in shared memory. */

/** Room for a worker's error message. */
export const FAILURE_BYTES = 2048;

/** An error as one line: its message and the first place in our code it came from. */
export function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0]!;
  const frame = (error.stack ?? '').split('\n').find((line) => /^\s+at .*\/(src|dist)\//.test(line));
  const where = frame?.match(/\(?((?:file:\/\/)?\/[^()]+:\d+):\d+\)?$/)?.[1]?.replace(/^file:\/\//, '');
  return `${error.message.split('\n')[0]}${where === undefined ? '' : ` (at ${where})`}`;
}
