/**
 * The accounts read model's public entry for src/: its rows and queries (queries.ts). The
 * projector is paired with the feature by the composition root (src/modules.ts), never
 * imported from here.
 */
export * from './queries.js';
