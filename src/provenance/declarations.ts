/**
 * What a manifest store declares: the active manifest's actions, and every IPTC
 * digitalSourceType anywhere in it (actions, action parameters, ingredient manifests,
 * metadata assertions), classified as generative AI, capture, or other.
 */
import type { Manifest, ManifestStore } from './read.js';

const DST_PREFIX = /^https?:\/\/cv\.iptc\.org\/newscodes\/digitalsourcetype\//;

/** Generated (wholly or partly) by an algorithm: the declarations that mean "AI". */
export const generativeSourceTypes = new Set([
  'trainedAlgorithmicMedia',
  'compositeWithTrainedAlgorithmicMedia',
  'algorithmicMedia',
  'compositeSynthetic',
]);

export type CaptureKind = 'capture' | 'computational' | 'none';

export interface ActionSummary {
  action: string;
  digitalSourceType?: string;
  softwareAgent?: string;
  when?: string;
}

export interface AiDeclaration {
  /** Short IPTC term, e.g. trainedAlgorithmicMedia. */
  sourceType: string;
  /** Where it was declared: c2pa.action, c2pa.ingredient, c2pa.assertion, xmp, png_text, exif_software. */
  source: string;
  /** Manifest label + assertion label, or the metadata field. */
  location: string;
}

export const shortSourceType = (value: string): string => value.trim().replace(DST_PREFIX, '');

function softwareAgentName(agent: unknown): string | undefined {
  if (typeof agent === 'string') return agent;
  if (agent && typeof agent === 'object' && typeof (agent as { name?: unknown }).name === 'string') {
    return (agent as { name: string }).name;
  }
  return undefined;
}

export function activeActions(manifest: Manifest | undefined): ActionSummary[] {
  const actions: ActionSummary[] = [];
  for (const assertion of manifest?.assertions ?? []) {
    if (!assertion.label?.startsWith('c2pa.actions')) continue;
    const list = (assertion.data as { actions?: Array<Record<string, unknown>> } | undefined)?.actions ?? [];
    for (const raw of list) {
      const parameters = (raw.parameters ?? {}) as Record<string, unknown>;
      const dst = raw.digitalSourceType ?? parameters.digitalSourceType;
      const agent = softwareAgentName(raw.softwareAgent);
      actions.push({
        action: String(raw.action ?? ''),
        ...(typeof dst === 'string' ? { digitalSourceType: shortSourceType(dst) } : {}),
        ...(agent ? { softwareAgent: agent } : {}),
        ...(typeof raw.when === 'string' ? { when: raw.when } : {}),
      });
    }
  }
  return actions;
}

/** Every digitalSourceType string value inside `value`, with the key path where it sits. */
function findSourceTypes(value: unknown, path: string, out: Array<{ value: string; path: string }>): void {
  if (typeof value === 'string') {
    if (DST_PREFIX.test(value.trim())) out.push({ value: shortSourceType(value), path });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => findSourceTypes(item, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) findSourceTypes(item, path ? `${path}.${key}` : key, out);
  }
}

/** Generative declarations in the active manifest and, recursively, its ingredients' manifests. */
export function manifestAiDeclarations(store: ManifestStore): AiDeclaration[] {
  const declarations: AiDeclaration[] = [];
  const visited = new Set<string>();
  const visit = (label: string | undefined, viaIngredient: boolean) => {
    if (!label || visited.has(label)) return;
    visited.add(label);
    const manifest = store.manifests?.[label];
    for (const assertion of manifest?.assertions ?? []) {
      const found: Array<{ value: string; path: string }> = [];
      findSourceTypes(assertion.data, '', found);
      for (const { value, path } of found) {
        if (!generativeSourceTypes.has(value)) continue;
        const source = viaIngredient
          ? 'c2pa.ingredient'
          : assertion.label?.startsWith('c2pa.actions')
            ? 'c2pa.action'
            : 'c2pa.assertion';
        declarations.push({ sourceType: value, source, location: `${label}/${assertion.label ?? '?'}${path ? `:${path}` : ''}` });
      }
    }
    for (const ingredient of manifest?.ingredients ?? []) visit(ingredient.active_manifest, true);
  };
  visit(store.active_manifest, false);
  return declarations;
}

/** The capture claim of the active manifest: a digitalCapture or computationalCapture action. */
export function captureKind(actions: ActionSummary[]): CaptureKind {
  const types = actions.map((a) => a.digitalSourceType);
  if (types.includes('digitalCapture')) return 'capture';
  if (types.includes('computationalCapture')) return 'computational';
  return 'none';
}

/**
 * Actions that keep a capture a faithful photograph. Anything else (c2pa.edited, drawing,
 * filtered, placed, removed, custom actions...) is "unlisted" and withholds provenance_verified.
 */
export const listedActions = new Set([
  'c2pa.created',
  'c2pa.opened',
  'c2pa.color_adjustments',
  'c2pa.cropped',
  'c2pa.resized',
  'c2pa.orientation',
  'c2pa.converted',
  'c2pa.transcoded',
  'c2pa.repackaged',
  'c2pa.published',
  'c2pa.edited.metadata',
]);

export const unlistedActions = (actions: ActionSummary[]): string[] =>
  [...new Set(actions.map((a) => a.action).filter((a) => !listedActions.has(a)))];
