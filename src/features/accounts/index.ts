/**
 * The accounts feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { billingCurrency } from './billing.js';
export { normaliseEmail } from './decider.js';
export { findAccount, findUser, findUserByEmail, listUsersOfAccount } from './queries.js';
