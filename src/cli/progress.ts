/**
 * Progress on stderr for long work: silent for the first second, then at most
 * a few updates a second (overwriting one line on a terminal, one line every
 * few seconds otherwise), so short runs and piped output stay clean.
 */
/**
 * WGA_PROGRESS_MS, when set, replaces both the first second of silence and the interval between
 * lines (the tests set 0 to see every update).
 */
function progressMs(): number | null {
  const text = process.env['WGA_PROGRESS_MS'];
  const value = text === undefined || text.trim() === '' ? NaN : Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

export class Progress {
  private readonly started = performance.now();
  private readonly quietMs = progressMs() ?? 1000;
  private readonly intervalMs: number;
  private lastShown = 0;
  private shownSomething = false;
  private readonly tty: boolean;

  constructor(private readonly enabled: boolean) {
    this.tty = process.stderr.isTTY === true;
    this.intervalMs = progressMs() ?? (this.tty ? 200 : 3000);
  }

  update(message: () => string): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.started < this.quietMs) return;
    if (this.shownSomething && now - this.lastShown < this.intervalMs) return;
    this.lastShown = now;
    this.shownSomething = true;
    if (this.tty) process.stderr.write(`\r\x1b[K${message()}`);
    else process.stderr.write(`${message()}\n`);
  }

  /** Clears the progress line (terminals) once the work is done. */
  done(): void {
    if (this.enabled && this.tty && this.shownSomething) process.stderr.write('\r\x1b[K');
    this.shownSomething = false;
  }
}
