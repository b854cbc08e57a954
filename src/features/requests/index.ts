/**
 * The requests feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). The provider page (served at the request's url) uses these.
 */
export { providerRequest, requestOfToken, submitToRequest, type ProviderRequestView, type SubmissionInput, type Submitted } from './submissions.js';
export { PROVIDER_PAGE_PREFIX, providerPageUrl } from './view.js';
export { createRequest, getRequest, listRequests, updateRequest, REQUEST_DEFAULTS } from './use-cases.js';
export { requestCreateBody, requestListQuery, MAX_SUBMISSIONS_LIMIT } from './routes.js';
export type { RequestView } from './view.js';
export { requestModes } from './events.js';
