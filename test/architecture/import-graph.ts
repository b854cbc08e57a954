/**
 * The import graph of the three code folders (`src/`, `projections/`, `workflows/`) and the rules
 * that keep its arrows pointing one way (DESIGN.md "Layout", issue 22 items 1-3).
 *
 * Each source file is parsed by the TypeScript compiler (TypeScript 7's API; parsing only, no type
 * checking, so it is fast and does not care whether the tree compiles) and every module it names
 * is collected: `import`, `export … from`, `import('literal')`, and `typeof import('literal')` in
 * types. Relative specifiers are resolved the way NodeNext does for this repository (`./x.js` is
 * the file `./x.ts`). References that are not imports (`new URL('./worker.js', import.meta.url)`
 * for worker threads, `fileURLToPath` for the Temporal bundle) are not edges: they load a file at
 * run time, not a module at build time.
 *
 * Each file is classified into a UNIT (a folder the rules talk about) and a RANK (arrows go to equal
 * or lower ranks). The rules are pure functions from the graph to violations, so the unit test can
 * run them over a small fixture tree and the architecture test over the repository.
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { API } from '@typescript/native/unstable/sync';
import * as ast from '@typescript/native/unstable/ast';
import * as is from '@typescript/native/unstable/ast/is';

export const CODE_FOLDERS = ['src', 'projections', 'workflows'] as const;

/** One module named by a file. `to` is a repository-relative path for relative specifiers, null for packages. */
export interface Edge {
  from: string;
  specifier: string;
  to: string | null;
  /** For a relative specifier: whether `to` exists. */
  resolved: boolean;
  /** The package (`knex`, `@temporalio/workflow`, `node:fs`) for a bare specifier. */
  packageName: string | null;
  builtin: boolean;
  /**
   * Erased by the compiler: `import type`, `export type … from`, `typeof import()`. An
   * `import { type A } from` is not: under verbatimModuleSyntax it stays as `import {} from`, which
   * still loads the module.
   */
  typeOnly: boolean;
}

export interface Place {
  unit: string;
  rank: number;
  /** The feature whose own place this file is (`src/features/<f>`, `projections/<f>`, `workflows/<f>`), if any. */
  feature: string | null;
}

export interface SourceFile extends Place {
  path: string;
  edges: Edge[];
}

export interface Graph {
  files: Map<string, SourceFile>;
}

export interface Violation {
  from: string;
  to: string;
  rule: string;
}

/**
 * The ranks, low to high: the one place they are written (the rules, their messages and the
 * tests read them from here).
 * - Analysis and provenance are libraries of the domain (RAW decoding and the analyses; C2PA
 *   reading, verdicts, signing): they know nothing of features, events or storage, so they sit
 *   just above core, and a feature's events may carry their result types (the verification
 *   events record analysis names, verdicts and assurance levels). Provenance grades analysis
 *   results.
 * - A read model (projections/) folds events; features read it through its public entry, and the
 *   composition root alone pairs each feature with its projectors (rule 8).
 * - The web app (src/web/) is a door over many features, as the HTTP adapter is a door over all
 *   of them: it sits above the features it shows and reaches each through its public entry.
 */
export const RANKS = {
  workflows: 0,
  core: 1,
  'core/text': 2,
  'core/audit': 2,
  'core/es': 3,
  'core/http': 4,
  'core/module': 5,
  analysis: 6,
  provenance: 7,
  events: 8,
  projections: 9,
  features: 10,
  web: 11,
  adapters: 12,
  compositionRoot: 13,
} as const;

/**
 * The parts of src/core/, each a folder that says what it is, in RANKS under `core/<part>`:
 * - core/ itself: what every part uses (errors, configuration, principals, the blob and mail ports);
 * - text/: text rules and HTML; audit/: the hash chain, anchors and the offline verifier (pure,
 *   loaded by the auditor's page too); both below the kernel, neither importing the other;
 * - es/: the event-sourcing kernel: event store port, events, deciders and the command runner,
 *   projector port, streams and their read rules, the workflow port;
 * - http/: routes and MCP tools as data, request validation, rate limits, signed URLs, the
 *   principal cache: what the doors need, over the kernel;
 * - module/: what a feature module is and what it is given (FeatureModule, AppDeps), over all of it.
 */
export const CORE_PARTS = Object.keys(RANKS)
  .filter((unit) => unit.startsWith('core/'))
  .map((unit) => unit.slice('core/'.length));

/** The ranks in words, low to high (`workflows 0, core 1, …`), for messages and docs. */
export const rankList = (): string => Object.entries(RANKS).map(([unit, rank]) => `${unit} ${rank}`).join(', ');

/**
 * The Temporal bundle's entry. It re-exports every feature's workflows, and those import the
 * shared `workflows/*.ts` helpers, so it is a unit of its own: counted with the shared files it
 * would make a cycle `workflows → workflows/<f> → workflows` that is not one.
 */
export const WORKFLOW_BUNDLE = 'workflows/index.ts';

/** Where a repository-relative path sits, or null when it is in none of the places the rules name. */
export function classify(file: string): Place | null {
  const parts = file.split('/');
  const [top, second, third] = parts;
  const inFolder = parts.length > 2;
  if (file === WORKFLOW_BUNDLE) return { unit: WORKFLOW_BUNDLE, rank: RANKS.workflows, feature: null };
  if (top === 'workflows') {
    return inFolder ? { unit: `workflows/${second}`, rank: RANKS.workflows, feature: second! } : { unit: 'workflows', rank: RANKS.workflows, feature: null };
  }
  if (top === 'projections') {
    return inFolder ? { unit: `projections/${second}`, rank: RANKS.projections, feature: second! } : { unit: 'projections', rank: RANKS.projections, feature: null };
  }
  if (top !== 'src' || second === undefined) return null;
  if (parts.length === 2) return { unit: 'root', rank: RANKS.compositionRoot, feature: null };
  switch (second) {
    case 'core':
      if (parts.length === 3) return { unit: 'core', rank: RANKS.core, feature: null };
      return CORE_PARTS.includes(third!) ? { unit: `core/${third}`, rank: RANKS[`core/${third}` as keyof typeof RANKS], feature: null } : null;
    case 'analysis':
      return { unit: 'analysis', rank: RANKS.analysis, feature: null };
    case 'provenance':
      return { unit: 'provenance', rank: RANKS.provenance, feature: null };
    case 'cli':
      return { unit: 'cli', rank: RANKS.compositionRoot, feature: null };
    case 'web':
      return { unit: 'web', rank: RANKS.web, feature: null };
    case 'adapters':
      return { unit: parts.length > 3 ? `adapters/${third}` : 'adapters', rank: RANKS.adapters, feature: null };
    case 'features':
      if (parts.length < 4) return null;
      return parts.length === 4 && parts[3] === 'events.ts'
        ? { unit: `events/${third}`, rank: RANKS.events, feature: third! }
        : { unit: `features/${third}`, rank: RANKS.features, feature: third! };
    default:
      return null;
  }
}

/** A feature's public entries: the only files of feature `feature` that another feature may import. */
export function publicEntries(feature: string): string[] {
  return [`src/features/${feature}/index.ts`, `src/features/${feature}/events.ts`, `projections/${feature}/index.ts`, `workflows/${feature}/index.ts`];
}

// ---------------------------------------------------------------------------------------------
// Reading the tree

function listSources(root: string, folder: string): string[] {
  const dir = path.join(root, folder);
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const name = entry.name;
    if (!/\.(ts|mts|mjs)$/.test(name) || name.endsWith('.spec.ts') || name.endsWith('.d.ts')) continue;
    out.push(path.relative(root, path.join(entry.parentPath, name)).split(path.sep).join('/'));
  }
  return out.sort();
}

interface Specifier {
  specifier: string;
  typeOnly: boolean;
}

/** The specifiers a parsed file names, with whether each is erased by the compiler. */
function specifiersOf(source: ast.SourceFile): Specifier[] {
  const found: Specifier[] = [];
  const literal = (node: ast.Node | undefined) => (node && (is.isStringLiteral(node) || is.isNoSubstitutionTemplateLiteral(node)) ? node.text : null);
  const visit = (node: ast.Node): undefined => {
    if (is.isImportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== null) found.push({ specifier, typeOnly: node.importClause?.phaseModifier === ast.SyntaxKind.TypeKeyword });
    } else if (is.isExportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== null) found.push({ specifier, typeOnly: node.isTypeOnly });
    } else if (is.isCallExpression(node) && node.expression.kind === ast.SyntaxKind.ImportKeyword) {
      const specifier = literal(node.arguments[0]);
      if (specifier !== null) found.push({ specifier, typeOnly: false });
    } else if (is.isImportTypeNode(node) && is.isLiteralTypeNode(node.argument)) {
      const specifier = literal(node.argument.literal);
      if (specifier !== null) found.push({ specifier, typeOnly: true });
    }
    node.forEachChild(visit);
    return undefined;
  };
  visit(source);
  return found;
}

/**
 * Parses `files` (repository-relative) with the TypeScript compiler and returns each one's
 * specifiers. TypeScript 7's compiler API is a session with the native compiler over a pipe: it
 * is given a throwaway tsconfig listing exactly these files with resolution off, so it parses them
 * without loading node_modules or the repository's own settings.
 */
export function parseSpecifiers(root: string, files: string[]): Map<string, Specifier[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
  const config = path.join(dir, 'tsconfig.json');
  const absolute = (file: string) => path.join(root, file);
  fs.writeFileSync(config, JSON.stringify({ compilerOptions: { noResolve: true, noLib: true, allowJs: true, types: [], module: 'nodenext' }, files: files.map(absolute) }));
  const api = new API({ cwd: dir });
  try {
    const project = api.updateSnapshot({ openProject: config }).getProject(config);
    if (!project) throw new Error(`the TypeScript compiler did not open ${config}`);
    const out = new Map<string, Specifier[]>();
    for (const file of files) {
      const source = project.program.getSourceFile(absolute(file));
      if (!source) throw new Error(`the TypeScript compiler did not parse ${file}`);
      out.set(file, specifiersOf(source));
    }
    return out;
  } finally {
    api.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** NodeNext as this repository uses it: `./x.js` names `./x.ts`, `./x.mjs` and `./x.ts` name themselves. */
function resolveRelative(root: string, from: string, specifier: string): { to: string; resolved: boolean } {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const exists = (candidate: string) => fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile();
  const candidates = target.endsWith('.js')
    ? [target.replace(/\.js$/, '.ts'), target]
    : target.endsWith('.mjs')
      ? [target, target.replace(/\.mjs$/, '.mts')]
      : [target, `${target}.ts`, `${target}/index.ts`];
  const hit = candidates.find(exists);
  return { to: hit ?? candidates[0]!, resolved: hit !== undefined };
}

function packageOf(specifier: string): { packageName: string; builtin: boolean } {
  if (specifier.startsWith('node:')) return { packageName: specifier, builtin: true };
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return { packageName: name, builtin: builtinModules.includes(name) };
}

/** Reads every .ts/.mts/.mjs file (not *.spec.ts) under the code folders of `root`. */
export function loadGraph(root: string): Graph {
  const files = new Map<string, SourceFile>();
  const sources = CODE_FOLDERS.flatMap((folder) => listSources(root, folder));
  const specifiers = parseSpecifiers(root, sources);
  for (const file of sources) {
    const place = classify(file) ?? { unit: `unclassified:${path.posix.dirname(file)}`, rank: Number.NaN, feature: null };
    const edges = specifiers.get(file)!.map(({ specifier, typeOnly }): Edge => {
      if (specifier.startsWith('.')) {
        return { from: file, specifier, ...resolveRelative(root, file, specifier), packageName: null, builtin: false, typeOnly };
      }
      return { from: file, specifier, to: null, resolved: true, ...packageOf(specifier), typeOnly };
    });
    files.set(file, { path: file, ...place, edges });
  }
  return { files };
}

// ---------------------------------------------------------------------------------------------
// Rules. Each returns every violation, as `file → imported file: rule`.

function* localEdges(graph: Graph): Generator<{ edge: Edge; from: SourceFile; to: Place | null; target: string }> {
  for (const from of graph.files.values()) {
    for (const edge of from.edges) {
      if (edge.to !== null) yield { edge, from, to: classify(edge.to), target: edge.to };
    }
  }
}

export function format(violations: Violation[]): string {
  return violations.map((v) => `${v.from} → ${v.to}: ${v.rule}`).join('\n');
}

/** Sanity: every file is in a place the rules know, every relative import names a file that exists. */
export function unknownPlaces(graph: Graph): Violation[] {
  const out: Violation[] = [];
  for (const file of graph.files.values()) {
    if (Number.isNaN(file.rank)) out.push({ from: file.path, to: '(itself)', rule: 'in no place the layout names (src/core, src/features/<f>, src/adapters/<x>, ...)' });
  }
  for (const { edge, to } of localEdges(graph)) {
    if (!edge.resolved) out.push({ from: edge.from, to: edge.specifier, rule: 'the relative import names no file' });
    else if (to === null) out.push({ from: edge.from, to: edge.to!, rule: 'imports a file outside src/, projections/ and workflows/' });
  }
  return out;
}

/**
 * Same-rank arrows between different units are allowed only where rules 2-4 allow them: a
 * feature's workflow or projector files to the shared files of their own top folder
 * (`workflows/*.ts`, `projections/*.ts`), the bundle entry to the workflows it bundles, and the
 * two below (rule 6 still forbids any cycle they could close).
 * Between two features' files rule 4 judges (public entries only), so they are not repeated here.
 */
function sidewaysAllowed(from: SourceFile, to: Place): boolean {
  if (from.feature !== null && to.feature !== null && to.feature !== from.feature) return true;
  // Two doors share a process: the HTTP adapter mounts the MCP server at /mcp.
  if (from.unit === 'adapters/http' && to.unit === 'adapters/mcp') return true;
  // The CLI is a second entry point: it opens the stores as the service does (src/service.ts openStores).
  if (from.unit === 'cli' && to.unit === 'root') return true;
  if (from.unit === WORKFLOW_BUNDLE) return to.unit.startsWith('workflows');
  const sharedFolder = (unit: string) => unit === 'workflows' || unit === 'projections';
  return sharedFolder(to.unit) && from.unit.startsWith(`${to.unit}/`);
}

/** Rule 1: no upward arrows, and no sideways ones between units of one rank but as above. */
export function upwardArrows(graph: Graph): Violation[] {
  const out: Violation[] = [];
  for (const { from, to, target } of localEdges(graph)) {
    if (to === null || Number.isNaN(from.rank) || to.unit === from.unit) continue;
    if (to.rank > from.rank) {
      out.push({ from: from.path, to: target, rule: `upward: ${from.unit} (rank ${from.rank}) imports ${to.unit} (rank ${to.rank})` });
    } else if (to.rank === from.rank && !sidewaysAllowed(from, to)) {
      out.push({ from: from.path, to: target, rule: `sideways: ${from.unit} imports ${to.unit} (same rank ${to.rank})` });
    }
  }
  return out;
}

/** Rule 2: workflow definitions are deterministic code: other workflow files and the workflow SDK only. */
export function nonDeterministicWorkflowImports(graph: Graph): Violation[] {
  const out: Violation[] = [];
  for (const file of graph.files.values()) {
    if (!file.path.startsWith('workflows/')) continue;
    for (const edge of file.edges) {
      if (edge.to !== null) {
        if (!edge.to.startsWith('workflows/')) out.push({ from: file.path, to: edge.to, rule: 'workflow code imports only workflows/**' });
      } else if (edge.builtin) {
        out.push({ from: file.path, to: edge.specifier, rule: 'workflow code imports no Node built-in (not deterministic; breaks the Temporal bundle)' });
      } else if (edge.packageName !== '@temporalio/workflow') {
        out.push({ from: file.path, to: edge.specifier, rule: `workflow code imports no package but @temporalio/workflow${edge.typeOnly ? ' (not even type-only)' : ''}` });
      }
    }
  }
  return out;
}

const PROJECTION_PACKAGES = new Set(['knex', 'node:crypto']);

/** Rule 3: the read side imports event types and the database port only. */
export function projectionImports(graph: Graph): Violation[] {
  const out: Violation[] = [];
  const allowedFile = (target: string) =>
    target.startsWith('projections/') || target.startsWith('src/core/') || /^src\/features\/[^/]+\/events\.ts$/.test(target);
  for (const file of graph.files.values()) {
    if (!file.path.startsWith('projections/')) continue;
    for (const edge of file.edges) {
      if (edge.to !== null) {
        if (!allowedFile(edge.to)) out.push({ from: file.path, to: edge.to, rule: 'projections import only projections/**, src/core/** and src/features/*/events.ts' });
      } else if (!PROJECTION_PACKAGES.has(edge.packageName!)) {
        out.push({ from: file.path, to: edge.specifier, rule: 'projections import no package but knex and node:crypto' });
      }
    }
  }
  return out;
}

/**
 * Units that are doors over many features (the web app, src/web/): not a feature, so no feature's
 * own place, but like a feature they name the features they show, each through its public entries
 * only (rule 4), as the HTTP adapter reaches all of them through the module list.
 */
export const FEATURE_DOORS: readonly string[] = ['web'];

/** Rule 4: a feature (or a door over features) reaches another only through that feature's public entries. */
export function crossFeatureImports(graph: Graph): Violation[] {
  const out: Violation[] = [];
  for (const { from, to, target } of localEdges(graph)) {
    const door = FEATURE_DOORS.includes(from.unit);
    if (to?.feature == null || (!door && (from.feature === null || to.feature === from.feature))) continue;
    if (!publicEntries(to.feature).includes(target)) {
      const entry = target.startsWith('src/') ? `src/features/${to.feature}/index.ts or events.ts` : `${target.split('/')[0]}/${to.feature}/index.ts`;
      const who = door ? from.unit : `feature ${from.feature}`;
      out.push({ from: from.path, to: target, rule: `${who} reaches into feature ${to.feature}; import its public entry ${entry}` });
    }
  }
  return out;
}

/** The port every projector implements: a file of projections/ that imports it is a projector's file. */
export const PROJECTOR_PORT = 'src/core/es/projector.ts';

/**
 * Rule 8: the write side reads a read model only through its public entry, and never holds its
 * projector (issue 37 item 8). A file of src/features/ or src/web/ imports of projections/ only
 * `projections/<f>/index.ts` (row types, queries, the pure folds), and no such entry imports a
 * projector's file (one that imports the projector port), so the composition root
 * (src/modules.ts) is the one place that pairs a feature with its projectors.
 */
export function readSideImports(graph: Graph): Violation[] {
  const out: Violation[] = [];
  const isEntry = (file: string) => /^projections\/[^/]+\/index\.ts$/.test(file);
  const projectorFiles = new Set(
    [...graph.files.values()].filter((f) => f.path.startsWith('projections/') && f.edges.some((e) => e.to === PROJECTOR_PORT)).map((f) => f.path),
  );
  for (const { from, target } of localEdges(graph)) {
    const writeSide = from.path.startsWith('src/features/') || FEATURE_DOORS.includes(from.unit);
    if (writeSide && target.startsWith('projections/') && !isEntry(target)) {
      out.push({ from: from.path, to: target, rule: `${from.unit} reads a read model only through its public entry ${target.split('/').slice(0, 2).join('/')}/index.ts; its projector is paired with the feature by src/modules.ts` });
    } else if (isEntry(from.path) && projectorFiles.has(target)) {
      out.push({ from: from.path, to: target, rule: "a read model's public entry carries no projector (features never hold one; src/modules.ts pairs them)" });
    }
  }
  return out;
}

/**
 * Rules 5 and 7, one rule: infrastructure does not know features. Any file outside every feature's
 * own places (core, adapters, provenance, analysis, cli, the composition root, the shared files of
 * projections/ and workflows/) that imports a feature's file, other than the files in `allowed`
 * and the doors over features (FEATURE_DOORS: the web app names the features it shows, through
 * their public entries, rule 4).
 * A feature importing another feature's public entry is not counted: that is a dependency the
 * feature itself declares (rule 4 governs its shape), and adding a feature never requires editing
 * another feature's folder; issue 22 item 1 is about infrastructure that must be edited for each
 * new feature, which is exactly the files this rule finds. Returned grouped by the feature named.
 */
export function infrastructureNamingFeatures(graph: Graph, allowed: readonly string[]): Map<string, Violation[]> {
  const byFeature = new Map<string, Violation[]>();
  for (const { from, to, target } of localEdges(graph)) {
    if (from.feature !== null || FEATURE_DOORS.includes(from.unit) || to?.feature == null || allowed.includes(from.path)) continue;
    const list = byFeature.get(to.feature) ?? [];
    list.push({ from: from.path, to: target, rule: `${from.unit} names feature ${to.feature}; only the module list may` });
    byFeature.set(to.feature, list);
  }
  return new Map([...byFeature].sort(([a], [b]) => a.localeCompare(b)));
}

/** Rule 6: the unit graph (type-only imports included) as adjacency with one example file edge per arrow. */
export function unitGraph(graph: Graph): Map<string, Map<string, string>> {
  const units = new Map<string, Map<string, string>>();
  for (const file of graph.files.values()) units.set(file.unit, units.get(file.unit) ?? new Map());
  for (const { from, to, target } of localEdges(graph)) {
    if (to === null || to.unit === from.unit) continue;
    const arrows = units.get(from.unit)!;
    if (!arrows.has(to.unit)) arrows.set(to.unit, `${from.path} → ${target}`);
    if (!units.has(to.unit)) units.set(to.unit, new Map());
  }
  return units;
}

/** Tarjan's strongly connected components of more than one unit (the unit graph has no self-loops): each holds a cycle. */
export function stronglyConnected(units: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of units.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...units.keys()].sort()) if (!index.has(v)) connect(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest cycle through `start` inside its component (breadth-first), as units, first = last. */
function shortestCycle(units: Map<string, Map<string, string>>, component: Set<string>, start: string): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(units.get(v)?.keys() ?? [])].sort()) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return [...path, start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Each arrow of a graph once, its first file edge said; a node's arrows to itself left out. */
type Arrows = Map<string, Map<string, string>>;

/**
 * Every cycle worth reading: for each strongly connected component, the shortest cycle through
 * each of its nodes, duplicates removed. Together they cover every node of the component without
 * listing the exponentially many longer cycles. Each as `a → b → a` then one file edge per arrow.
 */
function cyclesOf(arrows: Arrows): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const component of stronglyConnected(arrows)) {
    const members = new Set(component);
    for (const start of component) {
      const cycle = shortestCycle(arrows, members, start);
      const ring = cycle.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]!);
      const canonical = [...ring.slice(first), ...ring.slice(0, first)];
      const key = canonical.join(' → ');
      if (seen.has(key)) continue;
      seen.add(key);
      const closed = [...canonical, canonical[0]!];
      const edges = closed.slice(0, -1).map((node, i) => `    ${node} → ${closed[i + 1]}: ${arrows.get(node)!.get(closed[i + 1]!)}`);
      out.push([`${closed.join(' → ')}`, ...edges].join('\n'));
    }
  }
  return out;
}

/** Rule 6: the cycles among units (type-only imports included). */
export function unitCycles(graph: Graph): string[] {
  return cyclesOf(unitGraph(graph));
}

/**
 * The file graph: each file's imports of other files of the code folders, type-only ones
 * included (a cycle of types is still two files that cannot be read, or moved, one without the
 * other).
 */
export function fileGraph(graph: Graph): Arrows {
  const files: Arrows = new Map();
  for (const file of graph.files.keys()) files.set(file, new Map());
  for (const { edge, from, target } of localEdges(graph)) {
    if (!edge.resolved || !graph.files.has(target) || target === from.path) continue;
    const arrows = files.get(from.path)!;
    if (!arrows.has(target)) arrows.set(target, `${edge.typeOnly ? 'import type' : 'import'} '${edge.specifier}'`);
  }
  return files;
}

/**
 * Rule 7: no cycles between files, inside a unit as across units (issue 37 item 3): rule 6 sees
 * only arrows between units, so `core/text/text.ts ⇄ core/text/html.ts` passed it. Each cycle as
 * `a → b → a` with the import that makes each arrow.
 */
export function fileCycles(graph: Graph): string[] {
  return cyclesOf(fileGraph(graph));
}

/** A feature keeps one name in each place: every projections/<f> and workflows/<f> is a feature of src/features. */
export function strayFeatureFolders(graph: Graph): Violation[] {
  const features = new Set<string>();
  for (const file of graph.files.values()) if (file.path.startsWith('src/features/') && file.feature !== null) features.add(file.feature);
  const out: Violation[] = [];
  const reported = new Set<string>();
  for (const file of graph.files.values()) {
    if (file.feature === null || features.has(file.feature) || reported.has(file.unit)) continue;
    reported.add(file.unit);
    out.push({ from: file.path, to: `src/features/${file.feature}`, rule: `${file.unit} has no feature of that name in src/features` });
  }
  return out;
}
