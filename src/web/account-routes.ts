import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import type { HandlerInput, Reply, RouteSpec } from '../core/http/route-spec.js';
import { route } from '../core/http/route-spec.js';
import { parsePart } from '../core/http/validation.js';
import { selfServicePlans } from '../features/accounts/events.js';
import { addUser, addUserBody, changeAccountSettings, changeUserRole, getAccount, listAccountUsers, removeUser, roleBody, settingsBody } from '../features/accounts/index.js';
import { apiKeyCreateBody, createApiKey, listApiKeys, revokeApiKey } from '../features/apikeys/index.js';
import { getMonthlyUsage, includedPerMonth, monthlyPrice } from '../features/usage/index.js';
import {
  renderKeyCreatedPage,
  renderKeysPage,
  renderMembersPage,
  renderRemoveMemberPage,
  renderRevokeKeyPage,
  renderUsagePage,
  type KeyForm,
  type KeyView,
  type MemberForm,
  type MemberView,
  type SettingsForm,
} from './account-pages.js';
import type { AppContext } from './context.js';
import { formRefusal, refusalMessage } from './form-refusal.js';
import { asSessionUser, type AppSession } from './session.js';

/**
 * The account's pages (issue 27, must-work 3; docs/webapp.md "Account"): API keys, members and
 * roles, usage against the plan and the plan settings. Each page and form calls the use case its
 * REST route calls, and each form is read by that route's own body schema, so a description,
 * name or e-mail address is treated exactly as the API treats it (trimmed, controls and bidi
 * characters refused, addresses normalised) and who may do what is the API's rule, not the page's.
 */

const keyParam = z.strictObject({ key_id: z.uuid() });
const userParam = z.strictObject({ user_id: z.uuid() });

/** What a page says after a form's Post/Redirect/Get: a fixed word, never text from the request. */
const notices = {
  revoked: 'The key was revoked. Programs using it no longer get in.',
  invited: 'The invitation is on its way. Once they have chosen a password they can sign in here.',
  role: 'The role was changed. It applies to their next page or API request.',
  removed: 'The member was removed and signed out.',
  saved: 'The settings were saved. They apply at once.',
} as const;
const noticeQuery = (...allowed: [keyof typeof notices, ...(keyof typeof notices)[]]) => z.strictObject({ done: z.enum(allowed).optional() });

/** The form's fields the REST body names, as strings (a browser sends nothing else). */
const field = (form: Map<string, string>, name: string) => form.get(name) ?? '';


export function accountRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, serviceName, page, errorPage, viewerOf, signedIn, formAction, seeOther } = ctx;
  const common = { tag: 'webapp', auth: 'none' as const, produces: 'text/html', errorPage };
  const formErrors = {
    400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB' },
    403: { description: 'ACCESS_DENIED: another site’s form, a form without the session’s token, or (the page again, saying so) a caller the use case refuses' },
  };
  const signedOut = { 303: { description: 'Not signed in: to /app/login' } };

  /** Runs a form's use case; a refusal shows the form's page again with the message. */
  async function orShowAgain(act: () => Promise<Reply>, again: (status: number, message: string) => Promise<Reply>, labels: Record<string, string>): Promise<Reply> {
    try {
      return await act();
    } catch (error) {
      // Every user error is the form's (form-refusal.ts), at the API's status for it.
      const refusal = formRefusal(deps, error);
      if (!refusal) throw error;
      return again(refusal.status, refusalMessage(refusal.error, labels));
    }
  }

  // ------------------------------------------------------------ API keys

  const keyLabels = { description: 'Description', scope: 'Access', expires_in_days: 'Expires after (days)', account_id: 'Account' };

  async function keysPage(session: AppSession, status: number, extra: { form?: KeyForm; error?: string; notice?: string } = {}): Promise<Reply> {
    const { principal } = session;
    const [keys, viewer, users] = await Promise.all([
      listApiKeys(deps, principal),
      viewerOf(session),
      principal.role === 'admin' ? listAccountUsers(deps, principal, principal.accountId) : Promise.resolve({ items: [] }),
    ]);
    const owners = new Map(users.items.map((u) => [u.id, u.name || u.email]));
    return page(status, (nonce) =>
      renderKeysPage({ serviceName, nonce, appPath, viewer, keys, owners, isAdmin: principal.role === 'admin', viewerId: principal.userId, now: deps.now(), ...extra }),
    );
  }

  /** One of the keys the caller manages (the list use case's rule), or the API's 404. */
  async function managedKey(session: AppSession, keyId: string): Promise<KeyView> {
    const key = (await listApiKeys(deps, session.principal)).find((k) => k.id === keyId);
    if (!key) throw new NotFoundError('API_KEY_NOT_FOUND', 'API key not found.', { suggestion: 'Go back to your keys and pick one from the list.' });
    return key;
  }

  // ------------------------------------------------------------ Members

  const memberLabels = { name: 'Name', email: 'E-mail address', role: 'Role' };

  async function membersPage(session: AppSession, status: number, extra: { form?: MemberForm; error?: string; notice?: string } = {}): Promise<Reply> {
    const { principal } = session;
    const [users, viewer] = await Promise.all([listAccountUsers(deps, principal, principal.accountId), viewerOf(session)]);
    return page(status, (nonce) =>
      renderMembersPage({ serviceName, nonce, appPath, viewer, members: users.items as MemberView[], isAdmin: principal.role === 'admin', viewerId: principal.userId, ...extra }),
    );
  }

  // ------------------------------------------------------------ Usage and plan

  const settingsLabels = { plan: 'Plan', billing_country: 'Billing country', monthly_budget_cap_eur: 'Monthly budget cap' };
  const plans = selfServicePlans.map((plan) => ({ plan, price: monthlyPrice[plan], included: includedPerMonth[plan] }));

  async function usagePage(session: AppSession, status: number, extra: { form?: SettingsForm; error?: string; notice?: string } = {}): Promise<Reply> {
    const { principal } = session;
    const [usage, account, viewer] = await Promise.all([getMonthlyUsage(deps, principal, principal.accountId), getAccount(deps, principal, principal.accountId), viewerOf(session)]);
    const settings = { plan: account.plan, billing_country: account.billing_country, monthly_budget_cap_eur: account.monthly_budget_cap_eur };
    return page(status, (nonce) =>
      renderUsagePage({ serviceName, nonce, appPath, viewer, usage, settings, plans, isAdmin: principal.role === 'admin', ...extra }),
    );
  }

  /** The budget field as the API's number: empty is "no cap" (null); anything but a plain amount is refused in words. */
  const AMOUNT = /^\d{1,7}(\.\d{1,2})?$/;

  return [
    route({
      ...common,
      method: 'get',
      path: '/app/account',
      summary: 'The web app’s account section (HTML): to its API keys',
      responses: { 303: { description: 'To /app/account/keys, or not signed in: to /app/login' } },
      handler: signedIn(async () => seeOther(`${appPath}/account/keys`)),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/account/keys',
      summary: 'The web app’s API keys page (HTML): the keys the user manages and a form to create one',
      description: 'What GET /v1/apikeys/ lists (the same use case: an admin every key of the account, a member their own), never a raw key; a form to create a key.',
      query: noticeQuery('revoked'),
      responses: { 200: { description: 'The keys', schema: z.string() }, ...signedOut, 422: { description: 'A malformed query' } },
      handler: signedIn(async ({ query }, session) => keysPage(session, 200, { notice: query.done && notices[query.done] })),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/keys',
      summary: 'Create an API key (an HTML form); the answer page shows the raw key once',
      description:
        'Form fields: `description`, `scope` (full or read), `expires_in_days` (1–3650), `csrf_token`. Read by the body schema of POST /v1/apikeys/ and created by its use case, for the signed-in user. The answer (201, no-store) is the only page that ever shows the raw key, with a copy button. A refused field shows the form again (422) and creates nothing.',
      responses: {
        201: { description: 'The new key, shown this once', schema: z.string() },
        ...signedOut,
        ...formErrors,
        422: { description: 'VALIDATION_ERROR: the form again, saying which field the API refuses' },
      },
      handler: formAction(async ({ call }, session, form) => {
        const input = { description: field(form, 'description'), scope: field(form, 'scope'), expires_in_days: field(form, 'expires_in_days') };
        return orShowAgain(
          async () => {
            const days = input.expires_in_days.trim();
            const body = parsePart('body', apiKeyCreateBody, {
              account_id: session.principal.accountId,
              description: input.description.trim() === '' ? null : input.description,
              scope: input.scope || undefined,
              // A number field's text as the API's integer: anything else stays text, which the schema refuses.
              expires_in_days: /^\d{1,6}$/.test(days) ? Number(days) : days,
            });
            const [created, viewer] = await Promise.all([createApiKey(deps, asSessionUser(call, session), body), viewerOf(session)]);
            const key = { ...created, is_active: true, last_used_at: null };
            return page(201, (nonce) => renderKeyCreatedPage({ serviceName, nonce, appPath, viewer, key }), { script: true, headers: { 'Cache-Control': 'no-store' } });
          },
          (status, error) => keysPage(session, status, { form: input, error }),
          keyLabels,
        );
      }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/account/keys/{key_id}/revoke',
      summary: 'Confirm revoking an API key (HTML)',
      params: keyParam,
      responses: { 200: { description: 'The confirmation form', schema: z.string() }, ...signedOut, 404: { description: 'API_KEY_NOT_FOUND: not among the keys the user manages' }, 422: { description: 'The id is not a UUID' } },
      handler: signedIn(async ({ params }, session) => {
        const [key, viewer] = await Promise.all([managedKey(session, params.key_id), viewerOf(session)]);
        return page(200, (nonce) => renderRevokeKeyPage({ serviceName, nonce, appPath, viewer, key }));
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/keys/{key_id}/revoke',
      summary: 'Revoke an API key (an HTML form)',
      description: 'Form field `csrf_token`. The use case of DELETE /v1/apikeys/{key_id}: an admin any key of the account, a member their own; another key is 404, as on the API.',
      params: keyParam,
      responses: { 303: { description: 'Revoked: to /app/account/keys; or not signed in: to /app/login' }, ...formErrors, 404: { description: 'API_KEY_NOT_FOUND' }, 422: { description: 'The id is not a UUID' } },
      handler: formAction(async ({ params, call }: HandlerInput<unknown, unknown, { key_id: string }, 'none'>, session) => {
        await revokeApiKey(deps, asSessionUser(call, session), params.key_id);
        return seeOther(`${appPath}/account/keys?done=revoked`);
      }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/account/members',
      summary: 'The web app’s members page (HTML): the account’s users and roles; for admins, invitation, role and removal forms',
      description: 'What GET /v1/accounts/{account_id}/users lists (the same use case; every user of the account sees it). The forms are an admin’s: the use cases refuse anyone else, as on the API.',
      query: noticeQuery('invited', 'role', 'removed'),
      responses: { 200: { description: 'The members', schema: z.string() }, ...signedOut, 422: { description: 'A malformed query' } },
      handler: signedIn(async ({ query }, session) => membersPage(session, 200, { notice: query.done && notices[query.done] })),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/members',
      summary: 'Invite a member (an HTML form, account admins)',
      description:
        'Form fields: `name`, `email`, `role` (member or admin), `csrf_token`. Read by the body schema of POST /v1/accounts/{account_id}/users, always without a password: the user is invited by e-mail (the mail workflow sends it), chooses a password on the set-password page and signs in at /app/login. A refusal (a field, a taken address, not an admin) shows the page again and stores nothing.',
      responses: {
        303: { description: 'Invited: to /app/account/members; or not signed in: to /app/login' },
        ...formErrors,
        409: { description: 'EMAIL_TAKEN: the page again, saying so' },
        422: { description: 'VALIDATION_ERROR: the page again, saying which field the API refuses' },
      },
      handler: formAction(async ({ call }, session, form) => {
        const input = { name: field(form, 'name'), email: field(form, 'email'), role: field(form, 'role') };
        return orShowAgain(
          async () => {
            const body = parsePart('body', addUserBody, { name: input.name, email: input.email, role: input.role || undefined });
            await addUser(deps, asSessionUser(call, session), session.principal.accountId, body);
            return seeOther(`${appPath}/account/members?done=invited`);
          },
          (status, error) => membersPage(session, status, { form: input, error }),
          memberLabels,
        );
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/members/{user_id}/role',
      summary: 'Change a member’s role (an HTML form, account admins)',
      description: 'Form fields: `role` (member or admin), `csrf_token`. The use case of PATCH /v1/accounts/{account_id}/users/{user_id}; the last admin stays one (409, the page again).',
      params: userParam,
      responses: {
        303: { description: 'Changed: to /app/account/members; or not signed in: to /app/login' },
        ...formErrors,
        404: { description: 'USER_NOT_FOUND: not a user of this account (the members page again, saying so)' },
        409: { description: 'LAST_ADMIN: the page again, saying so' },
        422: { description: 'VALIDATION_ERROR: not a role; or the id is not a UUID' },
      },
      handler: formAction(async ({ params, call }: HandlerInput<unknown, unknown, { user_id: string }, 'none'>, session, form) =>
        orShowAgain(
          async () => {
            const body = parsePart('body', roleBody, { role: field(form, 'role') });
            await changeUserRole(deps, asSessionUser(call, session), session.principal.accountId, params.user_id, body.role);
            return seeOther(`${appPath}/account/members?done=role`);
          },
          (status, error) => membersPage(session, status, { error }),
          memberLabels,
        ),
      ),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/account/members/{user_id}/remove',
      summary: 'Confirm removing a member (HTML)',
      params: userParam,
      responses: { 200: { description: 'The confirmation form', schema: z.string() }, ...signedOut, 404: { description: 'USER_NOT_FOUND: not a user of this account' }, 422: { description: 'The id is not a UUID' } },
      handler: signedIn(async ({ params }, session) => {
        const [users, viewer] = await Promise.all([listAccountUsers(deps, session.principal, session.principal.accountId), viewerOf(session)]);
        const member = users.items.find((u) => u.id === params.user_id);
        if (!member) throw new NotFoundError('USER_NOT_FOUND', 'No such user in this account.', { suggestion: 'Go back to the members and pick one from the list.' });
        return page(200, (nonce) => renderRemoveMemberPage({ serviceName, nonce, appPath, viewer, member, viewerId: session.principal.userId }));
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/members/{user_id}/remove',
      summary: 'Remove a member (an HTML form, account admins)',
      description: 'Form field `csrf_token`. The use case of DELETE /v1/accounts/{account_id}/users/{user_id}: the user’s app sessions, tokens and API keys end at once; the last admin cannot be removed (409, the page again).',
      params: userParam,
      responses: {
        303: { description: 'Removed: to /app/account/members; or not signed in: to /app/login' },
        ...formErrors,
        404: { description: 'USER_NOT_FOUND: not a user of this account (the members page again, saying so)' },
        409: { description: 'LAST_ADMIN: the page again, saying so' },
        422: { description: 'The id is not a UUID' },
      },
      handler: formAction(async ({ params, call }: HandlerInput<unknown, unknown, { user_id: string }, 'none'>, session) =>
        orShowAgain(
          async () => {
            await removeUser(deps, asSessionUser(call, session), session.principal.accountId, params.user_id);
            return seeOther(`${appPath}/account/members?done=removed`);
          },
          (status, error) => membersPage(session, status, { error }),
          memberLabels,
        ),
      ),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/account/usage',
      summary: 'The web app’s usage and plan page (HTML)',
      description: 'This month’s usage against the plan (the use case of GET /v1/accounts/{account_id}/usage): verifications, PSD exports, overage, the budget cap. The plan settings: a form for admins, read-only for members.',
      query: noticeQuery('saved'),
      responses: { 200: { description: 'Usage and plan', schema: z.string() }, ...signedOut, 422: { description: 'A malformed query' } },
      handler: signedIn(async ({ query }, session) => usagePage(session, 200, { notice: query.done && notices[query.done] })),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/account/settings',
      summary: 'Change the plan, budget cap or billing country (an HTML form, account admins)',
      description:
        'Form fields: `plan` (free, basic or professional; absent on Enterprise), `monthly_budget_cap_eur` (an amount; empty: no cap), `billing_country`, `csrf_token`; a field not sent is left as it is. Read by the body schema of PATCH /v1/accounts/{account_id} and changed by its use case; a refusal shows the page again and changes nothing.',
      responses: {
        303: { description: 'Saved: to /app/account/usage; or not signed in: to /app/login' },
        ...formErrors,
        422: { description: 'VALIDATION_ERROR: the page again, saying which field the API refuses' },
      },
      handler: formAction(async ({ call }, session, form) => {
        // A field the form did not send is left as it is (as PATCH leaves an absent one); the page's form sends them all, an empty cap meaning none.
        const input = { plan: form.get('plan'), billing_country: form.get('billing_country'), monthly_budget_cap_eur: form.get('monthly_budget_cap_eur') };
        const again = (status: number, error: string) => usagePage(session, status, { form: input, error });
        const cap = input.monthly_budget_cap_eur?.trim();
        if (cap && !AMOUNT.test(cap)) return again(422, 'Monthly budget cap: enter an amount such as 50 or 12.50, or leave it empty for no overage.');
        return orShowAgain(
          async () => {
            const body = parsePart('body', settingsBody, {
              ...(input.plan === undefined ? {} : { plan: input.plan }),
              ...(input.billing_country === undefined ? {} : { billing_country: input.billing_country }),
              ...(cap === undefined ? {} : { monthly_budget_cap_eur: cap === '' ? null : Number(cap) }),
            });
            await changeAccountSettings(deps, asSessionUser(call, session), session.principal.accountId, body);
            return seeOther(`${appPath}/account/usage?done=saved`);
          },
          again,
          settingsLabels,
        );
      }),
    }),
  ];
}
