/**
 * The commands' options and help, as data (args.ts). Kept apart from the commands themselves so
 * that `photoverify --help` loads no command module.
 */
import type { CommandSpec } from './args.js';

export const analyzeSpec: CommandSpec = {
  name: 'analyze',
  summary: 'Analyse a camera RAW and the JPEG/HEIC rendered from it, on this machine, and grade the pair.',
  synopsis: '--raw FILE --image FILE [--json]',
  description:
    'Runs the same eight analyses as the service (RAW integrity, SSIM, perceptual hash, colour histogram, processing chain, EXIF, sensor pattern, recapture) without uploading anything. Progress goes to stderr (a live bar on a terminal, plain lines when piped), the result to stdout.',
  options: [
    { name: 'raw', type: 'string', value: 'FILE', description: 'the camera RAW (CR2, NEF, ARW, DNG, RAF, ...); required' },
    { name: 'image', type: 'string', value: 'FILE', description: 'the JPEG or HEIF/HEIC rendered from it; required' },
    { name: 'json', type: 'boolean', description: 'print the whole analysis as JSON instead of the summary', default: 'off' },
  ],
  exitCodes: [
    [0, 'graded "verified"'],
    [1, 'graded anything else (flagged, unrated, ...)'],
    [2, 'usage error, or a file that cannot be read or decoded'],
  ],
  examples: ['photoverify analyze --raw IMG_5952.CR2 --image IMG_5952.jpg', 'photoverify analyze --raw IMG_5952.CR2 --image IMG_5952.jpg --json > analysis.json'],
};

export const credentialsSpec: CommandSpec = {
  name: 'credentials',
  summary: "Check a file's C2PA Content Credentials: the verdict and its evidence, trusted as the service trusts.",
  synopsis: 'FILE [--json] [--data-dir DIR] [--trust-anchors PEM]... [--tsa-anchors PEM]... [--legacy-anchors PEM]...',
  positionals: [{ name: 'FILE', description: 'the image to check (JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF, GIF, DNG)' }],
  options: [
    { name: 'json', type: 'boolean', description: 'print the verdict and evidence report as JSON', default: 'off' },
    {
      name: 'data-dir',
      type: 'string',
      value: 'DIR',
      env: 'DATA_DIR',
      description: "the service's data directory: its development CA is a signer anchor (created there on first use when missing, as the service does)",
    },
    { name: 'trust-anchors', type: 'string', multiple: true, value: 'PEM', description: 'add a PEM file of trusted signer anchors to C2PA_TRUST_ANCHORS' },
    { name: 'tsa-anchors', type: 'string', multiple: true, value: 'PEM', description: 'add a PEM file of trusted timestamp authorities to C2PA_TSA_TRUST_ANCHORS' },
    { name: 'legacy-anchors', type: 'string', multiple: true, value: 'PEM', description: 'add a PEM file of the old interim trust list to C2PA_LEGACY_TRUST_ANCHORS' },
  ],
  notes: `Trust is configured as for the service, from the same environment variables:
  C2PA_TRUST_ANCHORS, C2PA_TSA_TRUST_ANCHORS, C2PA_LEGACY_TRUST_ANCHORS   comma-separated PEM files
  C2PA_SIGNING_KEY, C2PA_SIGNING_CHAIN                                     when set, no development CA is used
Run with the service's environment, it gives the service's verdict.`,
  exitCodes: [
    [0, 'the file was read and a verdict given (whatever the verdict: read it, or --json)'],
    [2, 'usage error, unreadable file, or a file that is not an image'],
  ],
  examples: ['photoverify credentials photo.jpg', 'photoverify credentials photo.jpg --json --data-dir ./data'],
};

export const verifySpec: CommandSpec = {
  name: 'verify',
  summary: 'Upload an image (and its RAW) to a PhotoVerify service, wait for the result and print it.',
  synopsis: '--image FILE [--raw FILE] --url URL --key KEY [--interval SECONDS] [--timeout SECONDS] [--json]',
  description:
    'With --raw: a RAW+image pair. Without: image-only, a Content Credentials check. Polls the verification until it completes; progress goes to stderr (live on a terminal, plain lines when piped), the result to stdout.',
  options: [
    { name: 'image', type: 'string', value: 'FILE', description: 'the image (pair: JPEG or HEIF/HEIC; image-only: JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF or GIF); required' },
    { name: 'raw', type: 'string', value: 'FILE', description: 'the camera RAW the image was rendered from' },
    { name: 'url', type: 'string', value: 'URL', env: 'PHOTOVERIFY_URL', description: 'service root, e.g. https://verify.example.eu; required' },
    { name: 'key', type: 'string', value: 'KEY', env: 'PHOTOVERIFY_API_KEY', description: 'API key (pv_...) or login token; required' },
    { name: 'interval', type: 'string', value: 'SECONDS', default: '20', description: 'time between polls' },
    { name: 'timeout', type: 'string', value: 'SECONDS', default: '600', description: 'give up waiting after this long (the verification goes on server-side)' },
    { name: 'json', type: 'boolean', description: 'print the whole verification record as JSON', default: 'off' },
  ],
  exitCodes: [
    [0, 'completed and verified: "verified" for a RAW pair, "provenance" (trusted Content Credentials, the best image-only can reach) without --raw'],
    [1, 'completed with any other assurance level, or failed'],
    [2, "usage error, unreadable file, service unreachable, or an HTTP error (the service's error code, message and suggestion are printed)"],
    [3, 'timed out: still not finished after --timeout (the verification goes on server-side)'],
  ],
  examples: ['photoverify verify --image IMG_5952.jpg --raw IMG_5952.CR2 --url http://localhost:8080 --key "$API_KEY"'],
};

export const auditSpec: CommandSpec = {
  name: 'audit',
  summary: "Check a verification's history offline: hash chains, anchor, Merkle proof, signature, certificate, timestamp.",
  synopsis: 'verify VERIFICATION-ID --url URL --key KEY [--trust PEM] [--save FILE] [--json]\n       photoverify audit verify --file BUNDLE --trust PEM',
  description:
    "Fetches the verification's audit bundle (GET /v1/verifications/{id}/audit-bundle) or reads one from --file, and checks it trusting nothing from the service but the certificate: the certificate you pin with --trust, or else the one the service publishes (GET /v1/anchors/certificate), whose SHA-256 fingerprint is printed either way so you can compare it with one you got elsewhere. Prints each check and stops at the first broken link, naming it (docs/audit.md).",
  positionals: [
    { name: 'verify', description: 'the action (the only one)' },
    { name: 'VERIFICATION-ID', description: 'the verification whose bundle is fetched from the service (not with a saved bundle)' },
  ],
  options: [
    { name: 'url', type: 'string', value: 'URL', env: 'PHOTOVERIFY_URL', description: 'service root, e.g. https://verify.example.eu (with a VERIFICATION-ID)' },
    { name: 'key', type: 'string', value: 'KEY', env: 'PHOTOVERIFY_API_KEY', description: "API key (pv_...) or login token of the verification's owner (with a VERIFICATION-ID)" },
    { name: 'file', type: 'string', value: 'BUNDLE', description: 'an audit bundle saved before (JSON), instead of fetching one' },
    { name: 'trust', type: 'string', value: 'PEM', description: "the certificate to trust (PEM): the service's published one or its CA; required with --file" },
    { name: 'save', type: 'string', value: 'FILE', description: 'also write the fetched bundle to FILE, for a later --file check' },
    { name: 'json', type: 'boolean', description: 'print the checks as JSON', default: 'off' },
  ],
  exitCodes: [
    [0, 'every check passed'],
    [1, 'a link is broken: the history, the anchor, the signature or the certificate does not check out (named on stderr)'],
    [2, "usage error, unreadable file, service unreachable, or an HTTP error (the service's error code, message and suggestion are printed)"],
    [3, 'not anchored yet: the history checks out but no anchor seals it yet (try again in a few minutes)'],
  ],
  examples: [
    'photoverify audit verify 6f1f1f6e-8f3e-4c55-9d7a-2b1f0e3c4d5a --url https://verify.example.eu --key "$API_KEY" --trust photoverify.pem',
    'photoverify audit verify --file audit-bundle.json --trust photoverify.pem',
  ],
};

export const commandSpecs: readonly CommandSpec[] = [analyzeSpec, credentialsSpec, verifySpec, auditSpec];
