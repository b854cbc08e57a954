import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { requires, type Gate } from './requires.js';

/** The Chromium the browser suites drive (Debian's, unless CHROMIUM_PATH names another). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Skips `what` (saying why) where there is no Chromium. */
export const chromiumGate = (what: string): Gate =>
  requires({ server: `Chromium at ${CHROMIUM}`, variable: 'CHROMIUM_PATH', available: fs.existsSync(CHROMIUM), how: 'apt-get install chromium' }, what);

/** A headless Chromium. LIBRARY-NOTES: as root it needs --no-sandbox; the rest keeps it from reaching for the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
