/**
 * Progress on stderr for long work: silent for the first second, then at most
 * a few updates a second (overwriting one line on a terminal, one line every
 * few seconds otherwise), so short runs and piped output stay clean.
 */
export class Progress {
  private readonly started = performance.now();
  private lastShown = 0;
  private shownSomething = false;
  private readonly tty: boolean;

  constructor(private readonly enabled: boolean) {
    this.tty = process.stderr.isTTY === true;
  }

  update(message: () => string): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.started < 1000) return;
    if (now - this.lastShown < (this.tty ? 200 : 3000)) return;
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
