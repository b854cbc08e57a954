/**
 * The requests feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). The provider page (served at the request's url) uses these.
 */
export { providerRequest, requestOfToken, submitToRequest, type ProviderRequestView, type SubmissionInput, type Submitted } from './submissions.js';
export { PROVIDER_PAGE_PREFIX, providerPageUrl } from './view.js';
