/**
 * Progress of a command whose fraction done is known (`analyze`), on stderr so stdout stays the
 * result. On a terminal one line is redrawn in place: a bar, the percentage and the phase. Piped
 * or in a log there are only whole lines, one per phase, no control characters.
 */
const WIDTH = 24;

export class ProgressBar {
  private readonly tty: boolean;
  private phase = '';
  private drawn = false;

  constructor(private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr) {
    this.tty = Boolean(out.isTTY);
  }

  update(phase: string, fraction: number): void {
    const done = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    const percent = `${String(Math.round(done * 100)).padStart(3)}%`;
    if (this.tty) {
      const filled = Math.round(done * WIDTH);
      this.out.write(`\r[${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${percent} ${phase}\x1b[K`);
      this.drawn = true;
    } else if (phase !== this.phase) {
      this.out.write(`[${percent}] ${phase}\n`);
    }
    this.phase = phase;
  }

  /** Ends the live line, so what follows starts on a line of its own. */
  done(): void {
    if (this.tty && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
