import { AppError } from '../core/errors.js';
import type { AppDeps } from '../core/module/deps.js';
import type { Principal } from '../core/principal.js';
import { getRequest, type RequestView } from '../features/requests/index.js';
import { failureOf, findVerification } from '../features/verifications/index.js';
import type { ListItem } from './pages.js';

/** What GET /v1/verifications lists, as far as a row of the app's lists reads it. */
interface Listed {
  id: string;
  status: string;
  request_id?: string | null;
}

/** One of the caller's requests as the requests feature reads it, or null where that read is its 404 (not this account's). */
export async function requestOrNull(deps: AppDeps, principal: Principal, id: string): Promise<RequestView | null> {
  try {
    return await getRequest(deps, principal, id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'REQUEST_NOT_FOUND') return null;
    throw error;
  }
}

/**
 * The rows of a verifications list (the list page, a request's submissions): each item as the API
 * lists it, plus, for a failed one, its failure in the report's plain words (verifications'
 * failureOf), and, for a submission, the subject of the request it answered (the requests
 * feature's own read: getRequest), so that a row never restates either.
 */
export async function listItemsOf(deps: AppDeps, principal: Principal, items: readonly Listed[]): Promise<ListItem[]> {
  const failed = items.filter((item) => item.status === 'failed');
  const requestIds = [...new Set(items.map((item) => item.request_id).filter((id): id is string => typeof id === 'string'))];
  const [failures, requests] = await Promise.all([
    Promise.all(
      failed.map(async (item) => {
        const row = await findVerification(deps.knex, item.id);
        return [item.id, row ? await failureOf(deps.store, row) : null] as const;
      }),
    ),
    Promise.all(requestIds.map(async (id) => [id, await requestOrNull(deps, principal, id)] as const)),
  ]);
  const failureById = new Map(failures);
  const requestById = new Map(requests);
  return items.map((item) => {
    const request = item.request_id ? requestById.get(item.request_id) : null;
    return {
      ...(item as unknown as ListItem),
      failure: failureById.get(item.id) ?? null,
      request: request ? { id: request.id, subject: request.subject } : null,
    };
  });
}
