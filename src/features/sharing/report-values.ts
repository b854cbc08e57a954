import { html, type Html } from '../../core/text/html.js';

/**
 * Reading a report's untyped JSON (analysis details, the evidence report) and the small
 * fragments every section of the report page is built from. A value that is missing or of the
 * wrong type reads as undefined and shows as nothing.
 */

export type Dict = Record<string, unknown>;
export const dict = (value: unknown): Dict => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Dict) : {});
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

const dateFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });

/** A time as the report says it (UTC, in words); the text itself when it is not a time. */
export function timeText(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${dateFormat.format(date)} UTC`;
}

export function time(iso: string): Html {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? html`${iso}` : html`<time datetime="${date.toISOString()}">${timeText(iso)}</time>`;
}

/** A term and its value in a fact list; nothing when there is no value. */
export function fact(term: string, value: unknown): Html {
  return value === undefined || value === null || value === '' ? html`` : html`<dt>${term}</dt><dd>${value}</dd>`;
}
