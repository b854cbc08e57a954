import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { verificationIdParam } from '../verifications/index.js';
import { MAX_TAG_NAME_LENGTH, MAX_TAGS_PER_ACCOUNT, MAX_TAGS_PER_VERIFICATION } from './names.js';
import { changeVerificationTags, createTag, deleteTag, listTags, updateTag } from './use-cases.js';

const nameRule = `1-${MAX_TAG_NAME_LENGTH} characters after surrounding white space is removed, no commas; unique per account, case-insensitive`;
// The rules themselves, lengths included, are checked by the domain (422 VALIDATION_ERROR in the error envelope, D-092);
// the schemas check the shape only (the 422 list form). JSON_BODY_LIMIT_BYTES bounds the input's size.
const tagName = z.string().describe(nameRule);
const color = z.string().nullable().describe('#rrggbb (six hex digits, stored in lower case); null for none').openapi({ example: '#1f77b4' });

const tagSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    color: z.string().nullable(),
    verification_count: z.number().int().describe('How many of your verifications carry the tag.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Tag');

const tagRef = z.object({ id: z.uuid(), name: z.string(), color: z.string().nullable() }).openapi('TagRef');
const tagList = z.object({ tags: z.array(tagRef).describe('Every tag on the verification after the change, sorted by name.') }).openapi('VerificationTags');
const tagsBody = z
  .strictObject({ tags: z.array(tagName).describe(`Tag names; at most ${MAX_TAGS_PER_VERIFICATION} distinct (case-insensitive) on a verification.`) })
  .openapi('VerificationTagsRequest');

const tagIdParam = z.strictObject({ tag_id: z.uuid() });

const invalid = { 422: { description: `VALIDATION_ERROR: a name that is not ${nameRule.split(';')[0]}, a colour not #rrggbb, more than ${MAX_TAGS_PER_VERIFICATION} tags on a verification, or more than ${MAX_TAGS_PER_ACCOUNT} tags in the account` } };
const verificationMissing = { 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' } };
const readOnlyKey = { 403: { description: 'ACCESS_DENIED: an API key with the read scope cannot change anything' } };

/** The account's tag vocabulary (spec 4.4) and the tags on a verification (spec 4.1). */
export function tagRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/tags/',
      tag: 'tags',
      summary: "List your account's tags, sorted by name, with how many verifications carry each",
      auth: 'any',
      responses: { 200: { description: 'Tags', schema: z.object({ items: z.array(tagSchema) }).openapi('TagList') } },
      handler: async ({ principal }) => ({ status: 200, body: await listTags(deps, principal) }),
    }),
    route({
      method: 'post',
      path: '/v1/tags/',
      tag: 'tags',
      summary: 'Create a tag',
      auth: 'any',
      body: z.strictObject({ name: tagName, color: color.optional() }).openapi('TagCreate'),
      responses: {
        ...readOnlyKey,
        201: { description: 'Created', schema: tagSchema },
        409: { description: 'TAG_EXISTS: the account has a tag of that name (case-insensitive)' },
        ...invalid,
      },
      handler: async ({ body, call }) => ({ status: 201, body: await createTag(deps, call, body) }),
    }),
    route({
      method: 'patch',
      path: '/v1/tags/{tag_id}',
      tag: 'tags',
      summary: 'Rename or recolour a tag',
      description: 'A rename shows on every verification carrying the tag. Changing only the case of the name is a rename of the same tag. An absent field is left as it is; `color: null` removes the colour.',
      auth: 'any',
      params: tagIdParam,
      body: z.strictObject({ name: tagName.optional(), color: color.optional() }).openapi('TagUpdate'),
      responses: {
        ...readOnlyKey,
        200: { description: 'Tag', schema: tagSchema },
        404: { description: 'TAG_NOT_FOUND (also when not yours)' },
        409: { description: 'TAG_EXISTS: another tag has that name (case-insensitive)' },
        ...invalid,
      },
      handler: async ({ params, body, call }) => ({ status: 200, body: await updateTag(deps, call, params.tag_id, body) }),
    }),
    route({
      method: 'delete',
      path: '/v1/tags/{tag_id}',
      tag: 'tags',
      summary: 'Delete a tag: it is detached from every verification, which are otherwise unchanged',
      auth: 'any',
      params: tagIdParam,
      responses: { ...readOnlyKey, 204: { description: 'Deleted' }, 404: { description: 'TAG_NOT_FOUND (also when not yours)' } },
      handler: async ({ params, call }) => {
        await deleteTag(deps, call, params.tag_id);
        return { status: 204 };
      },
    }),
    route({
      method: 'put',
      path: '/v1/verifications/{verification_id}/tags',
      tag: 'tags',
      summary: 'Set the tags of your verification to exactly these names',
      description: 'Unknown names are created in the account vocabulary (without a colour); names match existing tags case-insensitively; an empty array removes every tag. Idempotent.',
      auth: 'any',
      params: verificationIdParam,
      body: tagsBody,
      responses: { ...readOnlyKey, 200: { description: 'The tags after the change', schema: tagList }, ...verificationMissing, ...invalid },
      handler: async ({ params, body, call }) => ({ status: 200, body: await changeVerificationTags(deps, call, params.verification_id, { type: 'Set', names: body.tags }) }),
    }),
    route({
      method: 'post',
      path: '/v1/verifications/{verification_id}/tags',
      tag: 'tags',
      summary: 'Add tags to your verification, keeping those it has',
      description: 'Unknown names are created in the account vocabulary; names match existing tags case-insensitively. Adding a tag it already has changes nothing.',
      auth: 'any',
      params: verificationIdParam,
      body: tagsBody,
      responses: { ...readOnlyKey, 200: { description: 'The tags after the change', schema: tagList }, ...verificationMissing, ...invalid },
      handler: async ({ params, body, call }) => ({ status: 200, body: await changeVerificationTags(deps, call, params.verification_id, { type: 'Add', names: body.tags }) }),
    }),
    route({
      method: 'delete',
      path: '/v1/verifications/{verification_id}/tags/{tag_id}',
      tag: 'tags',
      summary: 'Detach a tag from your verification (it stays in the vocabulary)',
      auth: 'any',
      params: z.strictObject({ verification_id: z.uuid(), tag_id: z.uuid() }),
      responses: {
        ...readOnlyKey,
        200: { description: 'The tags after the change', schema: tagList },
        404: { description: 'VERIFICATION_NOT_FOUND (also when not yours); TAG_NOT_FOUND: no such tag, or not on this verification' },
      },
      handler: async ({ params, call }) => ({ status: 200, body: await changeVerificationTags(deps, call, params.verification_id, { type: 'Detach', tag_id: params.tag_id }) }),
    }),
  ];
}
