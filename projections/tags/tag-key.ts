/**
 * The key tag names are unique by within an account: case-insensitive (spec 2.4). Here, with the
 * read side, because the tags projection stores it (name_key); the write side's uniqueness rule
 * (src/features/tags/names.ts) uses the same function, through index.ts.
 */
export const tagKey = (name: string): string => name.normalize('NFC').trim().toLowerCase();
