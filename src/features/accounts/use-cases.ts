import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import { foldStream, runCommand, type CommandContext } from '../../core/es/decider.js';
import { parseEvent } from '../../core/es/events.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError, AppError, AuthenticationError, NotFoundError } from '../../core/errors.js';
import { assertStorableText } from '../../core/text/text.js';
import { assertAccountAccess, callerOf, type Call, type Principal } from '../../core/principal.js';
import { accountDecider, accountStream, emailClaimDecider, emailClaimStream, invitationNotFound, normaliseEmail, type AccountSettings } from './decider.js';
import { emailClaimEvents, type selfServicePlans, type UserRole } from './events.js';
import { revokeApiKeysOfUser } from '../apikeys/index.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { queueMail } from '../mail/index.js';
import { invitationMessage } from './invitation-message.js';
import { INVITATION_TOKEN_PATTERN, INVITATION_TTL_MS, invitationKey, invitationSha256, invitationToken } from './invitations.js';
import { findAccount, findUser, findUserByEmail, findUserByInvitation, listUsersOfAccount, type UserRow } from '../../../projections/accounts/index.js';
import { issueAccessToken } from './sessions.js';
import { toAccount, toUser, type AccountView, type UserView } from './view.js';

export type SelfServicePlan = (typeof selfServicePlans)[number];

/**
 * The e-mail claim streams are the service's address registry, not any account's history: an
 * address released by one account may be claimed by another, so their events name no account
 * and no account's audit history shows them (D-036). UserAdded/UserRemoved record the address.
 */
const registryContext = (context: CommandContext): CommandContext => ({ ...context, accountId: null });

/**
 * Claims `email` for a new user, then runs `write`, the command that records the user. The claim
 * must come first (its append is the uniqueness check), so a write that then fails would leave
 * the address claimed by a user who does not exist: registering again would answer EMAIL_TAKEN
 * and logging in 401, for ever. Unless the account has the user after all, the claim is released;
 * a claim a killed process left is released by the next claimant (claimEmail).
 */
async function underEmailClaim<T>(deps: AppDeps, context: CommandContext, claim: { email: string; user_id: string; account_id: string }, write: () => Promise<T>): Promise<T> {
  await claimEmail(deps, context, claim);
  try {
    return await write();
  } catch (error) {
    await releaseUnusedClaim(deps, context, claim).catch((releaseError: unknown) =>
      deps.log.error({ err: releaseError, user: claim.user_id }, 'the e-mail claim of a user who was not created could not be released'),
    );
    throw error;
  }
}

/**
 * A claim older than this whose user is not in its account was left by a process killed between
 * the claim and the user's write (which follows the claim at once): it is released for the next
 * claimant. Far longer than that step ever takes, so a registration in progress is never undone.
 */
export const ABANDONED_EMAIL_CLAIM_MS = 10 * 60_000;

/**
 * The e-mail stream can hold one claim only: this append is the uniqueness check. A claim that
 * is taken by a user who never came to be (older than ABANDONED_EMAIL_CLAIM_MS), or by a removed
 * user whose release was cut off, is released first and the address claimed again (issue 36).
 */
async function claimEmail(deps: AppDeps, context: CommandContext, claim: { email: string; user_id: string; account_id: string }): Promise<void> {
  const append = () => runCommand(deps.store, emailClaimStream(claim.email), emailClaimDecider, { type: 'ClaimEmail', ...claim }, registryContext(context));
  try {
    await append();
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'EMAIL_TAKEN') || !(await releaseAbandonedClaim(deps, context, claim.email))) throw error;
    await append();
  }
}

/** Releases the address's claim when its holder is no user of the account it named (see claimEmail); true when it did. */
async function releaseAbandonedClaim(deps: AppDeps, context: CommandContext, email: string): Promise<boolean> {
  const last = (await deps.store.readStream(emailClaimStream(email))).at(-1);
  const claimed = last ? parseEvent(emailClaimEvents, last) : null;
  if (!last || claimed?.type !== 'EmailClaimed') return false;
  const holder = claimed.data;
  const { state } = await foldStream(deps.store, accountStream(holder.account_id), accountDecider);
  if (state.users.has(holder.user_id)) return false;
  // A removed user's address is free once the removal is recorded; a user not written yet may still be on the way.
  const abandoned = state.removed.has(holder.user_id) || context.now.getTime() - new Date(last.metadata.occurred_at).getTime() >= ABANDONED_EMAIL_CLAIM_MS;
  if (!abandoned) return false;
  // Decided on the e-mail stream's revision: of two claimants releasing it, one does; the other's release records nothing.
  await runCommand(deps.store, emailClaimStream(email), emailClaimDecider, { type: 'ReleaseEmail', email, user_id: holder.user_id, now: context.now }, registryContext(context));
  deps.log.warn({ user: holder.user_id }, 'an e-mail claim whose user was never recorded (or was removed) was released for a new claim');
  return true;
}

async function releaseUnusedClaim(deps: AppDeps, context: CommandContext, claim: { email: string; user_id: string; account_id: string }): Promise<void> {
  // A write reported failed may have been appended (e.g. a connection lost after the commit): then the user keeps the address.
  const { state } = await foldStream(deps.store, accountStream(claim.account_id), accountDecider);
  if (state.users.has(claim.user_id) || state.removed.has(claim.user_id)) return;
  await runCommand(deps.store, emailClaimStream(claim.email), emailClaimDecider, { type: 'ReleaseEmail', email: claim.email, user_id: claim.user_id, now: context.now }, registryContext(context));
}

/** A row the call has just written: absent only when the read models lag behind the write. */
function written<T>(row: T | undefined, message: string): T {
  if (!row) throw new AppError('SERVICE_UNAVAILABLE', message, { suggestion: 'Retry the read shortly.' });
  return row;
}

/** A row that exists whenever the caller does (users reference their account). */
function present<T>(row: T | undefined, what: string): T {
  if (!row) throw new Error(`${what} is missing from the read model`);
  return row;
}

export interface Registration {
  name: string;
  plan: SelfServicePlan;
  billing_country: string;
  monthly_budget_cap_eur: number | null;
  admin: { email: string; name: string; password: string };
}

/** Registers an account and its first user, who is its admin. Public: acts as the user it creates. */
export async function registerAccount(deps: AppDeps, call: Call, input: Registration): Promise<{ account: AccountView; user: UserView }> {
  const accountId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const passwordHash = await hashPassword(input.admin.password, deps.config.PASSWORD_HASH_COST);
  const context = commandContext(deps, call, { type: 'user', id: userId, accountId });
  assertStorableText(input);
  await underEmailClaim(deps, context, { email: input.admin.email, user_id: userId, account_id: accountId }, () =>
    execute(deps, call, accountStream(accountId), accountDecider, {
      type: 'RegisterAccount',
      account_id: accountId,
      name: input.name,
      plan: input.plan,
      billing_country: input.billing_country,
      monthly_budget_cap_eur: input.monthly_budget_cap_eur,
      admin: { user_id: userId, email: normaliseEmail(input.admin.email), name: input.admin.name, password_hash: passwordHash },
      now: context.now,
    }, context),
  );
  const account = written(await findAccount(deps.knex, accountId), 'The account was created but is not readable yet.');
  const user = written(await findUser(deps.knex, userId), 'The user was created but is not readable yet.');
  return { account: toAccount(account), user: toUser(user) };
}

export interface LoginResult {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: string;
  user: UserView;
  account: AccountView;
}

/**
 * Checks e-mail and password and issues a session token. Failed attempts are limited per
 * address and client; an unknown address costs what a wrong password costs. Each attempt is
 * counted before its password is checked and the count is cleared when one succeeds, so a burst
 * of concurrent guesses gets no more tries than the limit (a check made first would pass them all).
 */
export async function logIn(deps: AppDeps, call: Call, input: { email: string; password: string }): Promise<LoginResult> {
  const user = await checkCredentials(deps, call, input);
  const account = present(await findAccount(deps.knex, user.account_id), `account ${user.account_id}`);
  const { token, expiresAt } = await issueAccessToken(deps, user);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: deps.config.JWT_TTL_SECONDS,
    expires_at: expiresAt.toISOString(),
    user: toUser(user),
    account: toAccount(account),
  };
}

/**
 * The user the e-mail address and password name (logIn's check, and the web app's sign-in:
 * one limit, one door), or 401 INVALID_CREDENTIALS.
 */
export async function checkCredentials(deps: AppDeps, call: Call, input: { email: string; password: string }): Promise<UserRow> {
  const address = normaliseEmail(input.email);
  const limiterKey = `${address}|${call.clientAddress}`;
  await deps.loginLimiter.take(limiterKey, 'failed login attempts');
  const user = await findUserByEmail(deps.knex, address);
  const ok = await verifyPassword(input.password, user?.password_hash ?? (await deps.decoyPasswordHash));
  if (!user || !ok) {
    throw new AuthenticationError('INVALID_CREDENTIALS', 'Wrong e-mail address or password.', { suggestion: 'Check both and try again.' });
  }
  await deps.loginLimiter.reset(limiterKey);
  return user;
}

/** The calling user, their account, and how they authenticated. */
export async function describeCaller(deps: AppDeps, principal: Principal): Promise<{ user: UserView; account: AccountView; authenticated_via: Principal['via'] }> {
  const user = present(await findUser(deps.knex, principal.userId), `user ${principal.userId}`);
  const account = present(await findAccount(deps.knex, principal.accountId), `account ${principal.accountId}`);
  return { user: toUser(user), account: toAccount(account), authenticated_via: principal.via };
}

/** An account the caller belongs to. */
export async function getAccount(deps: AppDeps, principal: Principal, accountId: string): Promise<AccountView> {
  assertAccountAccess(principal, accountId);
  return toAccount(present(await findAccount(deps.knex, accountId), `account ${accountId}`));
}

/** Changes plan, billing country or budget cap (account admins; Enterprise terms excepted: the decider says so). */
export async function changeAccountSettings(deps: AppDeps, call: Call, accountId: string, changes: Partial<AccountSettings>): Promise<AccountView> {
  const principal = callerOf(call);
  assertAccountAccess(principal, accountId);
  const context = commandContext(deps, call);
  await execute(deps, call, accountStream(accountId), accountDecider, { type: 'ChangeSettings', by: { user_id: principal.userId }, changes, now: context.now }, context);
  return toAccount(written(await findAccount(deps.knex, accountId), 'The account was changed but is not readable yet.'));
}

/** The account's users, oldest first. */
export async function listAccountUsers(deps: AppDeps, principal: Principal, accountId: string): Promise<{ items: UserView[]; total: number }> {
  assertAccountAccess(principal, accountId);
  const rows = await listUsersOfAccount(deps.knex, accountId);
  return { items: rows.map(toUser), total: rows.length };
}

export interface NewUserInput {
  email: string;
  name: string;
  /** Set by the admin; omitted, the user is invited by e-mail to choose their own (D-039). */
  password?: string;
  role: UserRole;
}

/**
 * Adds a user to the account (account admins only); the e-mail claim keeps addresses unique.
 * With a password the user can log in at once; without, they get an invitation e-mail with a
 * personal link to choose a password, valid for 7 days.
 */
export async function addUser(deps: AppDeps, call: Call, accountId: string, input: NewUserInput): Promise<UserView> {
  const principal = callerOf(call);
  assertAccountAccess(principal, accountId);
  if (principal.role !== 'admin') throw new AccessDeniedError('Only an admin of the account can add users.');
  const userId = crypto.randomUUID();
  const context = commandContext(deps, call);
  assertStorableText(input);
  const user = { user_id: userId, email: normaliseEmail(input.email), name: input.name, role: input.role };
  const claim = { email: input.email, user_id: userId, account_id: accountId };
  if (input.password !== undefined) {
    const passwordHash = await hashPassword(input.password, deps.config.PASSWORD_HASH_COST);
    await underEmailClaim(deps, context, claim, () =>
      execute(deps, call, accountStream(accountId), accountDecider, { type: 'AddUser', by_user_id: principal.userId, user: { ...user, password_hash: passwordHash }, now: context.now }, context),
    );
  } else {
    const expiresAt = new Date(context.now.getTime() + INVITATION_TTL_MS);
    await underEmailClaim(deps, context, claim, () =>
      execute(deps, call, accountStream(accountId), accountDecider, {
        type: 'InviteUser',
        by_user_id: principal.userId,
        user,
        token_sha256: invitationSha256(invitationToken(invitationKey(deps.config.DATA_DIR), userId)),
        expires_at: expiresAt,
        now: context.now,
      }, context),
    );
    // A process killed before this queueing leaves the message to the invitation mail sweep (workflows/accounts/invitation-workflow.ts).
    const mail = await invitationMessage(deps, { accountId, userId, email: user.email, name: input.name, role: input.role, expiresAt, inviterUserId: principal.userId });
    await queueMail(deps, context, mail);
  }
  return toUser(written(await findUser(deps.knex, userId), 'The user was created but is not readable yet.'));
}

/**
 * Accepts an invitation: whoever holds the mailed link chooses the user's password, and is
 * logged in. Unknown, used or withdrawn links are INVITATION_NOT_FOUND; expired ones INVITATION_EXPIRED.
 */
export async function acceptInvitation(deps: AppDeps, call: Call, input: { token: string; password: string }): Promise<LoginResult> {
  const tokenSha256 = invitationSha256(input.token);
  const invited = INVITATION_TOKEN_PATTERN.test(input.token) ? await findUserByInvitation(deps.knex, tokenSha256) : undefined;
  if (!invited) throw invitationNotFound();
  const passwordHash = await hashPassword(input.password, deps.config.PASSWORD_HASH_COST);
  const context = commandContext(deps, call, { type: 'user', id: invited.id, accountId: invited.account_id });
  await execute(deps, call, accountStream(invited.account_id), accountDecider, { type: 'AcceptInvitation', user_id: invited.id, token_sha256: tokenSha256, password_hash: passwordHash, now: context.now }, context);
  const user = written(await findUser(deps.knex, invited.id), 'The password was set but is not readable yet.');
  const account = present(await findAccount(deps.knex, user.account_id), `account ${user.account_id}`);
  const { token, expiresAt } = await issueAccessToken(deps, user);
  return { access_token: token, token_type: 'bearer', expires_in: deps.config.JWT_TTL_SECONDS, expires_at: expiresAt.toISOString(), user: toUser({ ...user, password_hash: passwordHash }), account: toAccount(account) };
}

/** Makes a user of the account an admin or a member (account admins only; the last admin stays one). */
export async function changeUserRole(deps: AppDeps, call: Call, accountId: string, userId: string, role: UserRole): Promise<UserView> {
  const principal = callerOf(call);
  assertAccountAccess(principal, accountId);
  const context = commandContext(deps, call);
  await execute(deps, call, accountStream(accountId), accountDecider, { type: 'ChangeUserRole', by_user_id: principal.userId, user_id: userId, role, now: context.now }, context);
  return toUser(written(await findUser(deps.knex, userId), 'The user was changed but is not readable yet.'));
}

/**
 * Removes a user from the account (account admins only; never the last admin). Their sessions
 * and API keys stop working at once (both resolve the user, who is gone); the keys are also
 * revoked, so the key list says so, and the address is released for use again. Their comments
 * and verifications stay with the account.
 */
export async function removeUser(deps: AppDeps, call: Call, accountId: string, userId: string): Promise<void> {
  const principal = callerOf(call);
  assertAccountAccess(principal, accountId);
  const context = commandContext(deps, call);
  let email: string;
  try {
    const { events } = await execute(deps, call, accountStream(accountId), accountDecider, { type: 'RemoveUser', by_user_id: principal.userId, user_id: userId, now: context.now }, context);
    const removed = events.find((e) => e.type === 'UserRemoved');
    if (!removed) return;
    email = removed.data.email;
  } catch (error) {
    // A removal the process did not finish (it died after UserRemoved): asking again completes
    // it, then answers as for any removed user.
    const earlier = error instanceof NotFoundError ? (await foldStream(deps.store, accountStream(accountId), accountDecider)).state.removed.get(userId) : undefined;
    if (earlier !== undefined) await finishRemoval(deps, call, context, accountId, userId, earlier);
    throw error;
  }
  await finishRemoval(deps, call, context, accountId, userId, email);
}

/** After UserRemoved: revokes the user's keys and releases their address. Each step is idempotent. */
async function finishRemoval(deps: AppDeps, call: Call, context: CommandContext, accountId: string, userId: string, email: string): Promise<void> {
  await revokeApiKeysOfUser(deps, call, context, accountId, userId);
  await runCommand(deps.store, emailClaimStream(email), emailClaimDecider, { type: 'ReleaseEmail', email, user_id: userId, now: context.now }, registryContext(context));
}

/**
 * The calling user replaces their password (e.g. the initial one an admin set, D-039). The
 * current password is checked, with failures limited like logins. Every session token issued
 * before the change stops working; the answer carries a fresh one. API keys are unaffected:
 * they are separate credentials, listed and revoked on their own.
 */
export async function changeOwnPassword(deps: AppDeps, call: Call, input: { current_password: string; new_password: string }): Promise<LoginResult> {
  const principal = callerOf(call);
  const user = present(await findUser(deps.knex, principal.userId), `user ${principal.userId}`);
  const limiterKey = `${user.email}|${call.clientAddress}`;
  // Counted before the check, cleared on success: the same door as logIn.
  await deps.loginLimiter.take(limiterKey, 'failed login attempts');
  if (!(await verifyPassword(input.current_password, user.password_hash ?? (await deps.decoyPasswordHash)))) {
    throw new AccessDeniedError('The current password is wrong.', { suggestion: 'Send your current password in current_password.' });
  }
  await deps.loginLimiter.reset(limiterKey);
  const context = commandContext(deps, call);
  const passwordHash = await hashPassword(input.new_password, deps.config.PASSWORD_HASH_COST);
  await execute(deps, call, accountStream(user.account_id), accountDecider, { type: 'ChangePassword', user_id: user.id, password_hash: passwordHash, now: context.now }, context);
  const account = present(await findAccount(deps.knex, user.account_id), `account ${user.account_id}`);
  // The token names the change just made, even if the read model has not caught up yet.
  const { token, expiresAt } = await issueAccessToken(deps, { ...user, password_changed_at: context.now });
  return { access_token: token, token_type: 'bearer', expires_in: deps.config.JWT_TTL_SECONDS, expires_at: expiresAt.toISOString(), user: toUser(user), account: toAccount(account) };
}
