/**
 * Stream ids are `<category>-<id>` (e.g. verification-<uuid>, usage-<account>-<month>): the
 * category names the aggregate, the rest identifies one instance. One format, built and read here.
 */
export const streamName = (category: string, id: string): string => `${category}-${id}`;

/** The id part of a stream of the given category (what follows `<category>-`). */
export function streamInstance(category: string, stream: string): string {
  const prefix = `${category}-`;
  if (!stream.startsWith(prefix)) throw new Error(`Stream ${stream} is not of category ${category}`);
  return stream.slice(prefix.length);
}

/** The category of a stream name: what precedes its first `-` (`usage-<account>-<month>` is of category usage). */
export function streamCategory(stream: string): string {
  const dash = stream.indexOf('-');
  if (dash <= 0) throw new Error(`Stream ${stream} has no category`);
  return stream.slice(0, dash);
}
