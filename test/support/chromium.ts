import fs from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/** axe-core's serious and critical violations on the page as it is now, each named with where it is (the pages must have none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
