/**
 * The accounts feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { billingCurrency } from './billing.js';
export { normaliseEmail } from './decider.js';
export { findAccount, findUser, findUserByEmail, listUsersOfAccount } from '../../../projections/accounts/index.js';
export { logIn } from './use-cases.js';
export { resolveJwt } from './sessions.js';
/** The web app's server-side sessions (issue 36). */
export { resolveAppSession, signOutAppSession, startAppSession, type AppSessionOf } from './app-sessions.js';
export { addUser, changeAccountSettings, changeUserRole, getAccount, listAccountUsers, removeUser } from './use-cases.js';
/** The REST bodies, so the web app's forms are read by the same rules (issue 27). */
export { addUserBody, registerBody, roleBody, settingsBody } from './routes.js';
/** The front door (issue 39): sign-up is registerAccount; a forgotten password, a mailed link. */
export { registerAccount } from './use-cases.js';
export { isResetToken, requestPasswordReset, resetPassword, RESET_LINK_TTL_MS } from './password-reset.js';
