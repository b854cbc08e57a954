import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { publicBasePath } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { uuidParam } from '../../core/http/schemas.js';
import { oneLineText } from '../../core/text/text-schemas.js';
import { selfServicePlans, userRoles } from './events.js';
import { SET_PASSWORD_PATH } from './invitations.js';
import { renderSetPasswordPage, setPasswordHeaders } from './set-password-page.js';
import { acceptInvitation, addUser, changeAccountSettings, changeOwnPassword, changeUserRole, describeCaller, getAccount, listAccountUsers, logIn, registerAccount, removeUser } from './use-cases.js';
import { accountSchema, userSchema } from './view.js';
import { newNonce } from '../../core/text/html.js';

const email = z.email().max(254);
const password = z.string().min(10, 'Passwords need at least 10 characters.').max(200);
// Names are shown on report pages and in e-mail subjects: no controls, no bidi formatting (text-schemas.ts).
const personName = oneLineText().min(1).max(120);

const billingCountry = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'ISO 3166-1 alpha-2 country code, e.g. DE.')
  .transform((c) => c.toUpperCase());
const budgetCap = z
  .number()
  .nonnegative()
  .max(1_000_000)
  .nullable()
  .describe('Most the account may spend on verifications beyond its plan each month, in EUR; null: no overage.');
const selfServicePlan = z.enum(selfServicePlans).describe('Enterprise terms are set by contract (an operator command), not chosen here.');

export const registerBody = z
  .strictObject({
    name: oneLineText().min(1).max(200).describe('Account (organisation) name.'),
    plan: selfServicePlan.default('free'),
    billing_country: billingCountry.default('DE'),
    monthly_budget_cap_eur: budgetCap.default(null),
    admin: z.strictObject({ email, name: personName, password }),
  })
  .openapi('AccountRegistration');

export const settingsBody = z
  .strictObject({ plan: selfServicePlan.optional(), billing_country: billingCountry.optional(), monthly_budget_cap_eur: budgetCap.optional() })
  .refine((b) => Object.keys(b).length > 0, 'Name at least one of plan, billing_country, monthly_budget_cap_eur.')
  .openapi('AccountSettingsChange');

const loginBody = z.strictObject({ email, password: z.string().min(1).max(200) }).openapi('LoginRequest');
const loginResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int(),
    expires_at: z.string(),
    user: userSchema,
    account: accountSchema,
  })
  .openapi('LoginResponse');

export const addUserBody = z
  .strictObject({
    email,
    name: personName,
    password: password
      .optional()
      .describe(
        'Omit it (recommended) to invite the user by e-mail: they get a personal link, valid 7 days, to choose their own password. Given, it is an initial password the admin hands over, which the user replaces with PUT /v1/accounts/me/password.',
      ),
    role: z.enum(userRoles).default('member'),
  })
  .openapi('NewUser');
const passwordChangeBody = z
  .strictObject({ current_password: z.string().min(1).max(200), new_password: password })
  .refine((b) => b.current_password !== b.new_password, { message: 'The new password must differ from the current one.', path: ['new_password'] })
  .openapi('PasswordChange');
const acceptBody = z
  .strictObject({ token: z.string().max(200).describe('The part of the invitation link after `#`.'), password })
  .openapi('InvitationAcceptance');
const userParams = z.strictObject({ account_id: z.uuid(), user_id: z.uuid() });
export const roleBody = z.strictObject({ role: z.enum(userRoles) }).openapi('UserRoleChange');
const manageErrors = {
  403: { description: 'ACCESS_DENIED: not an admin of this account, another account, or an API key (a login token is required)' },
  404: { description: 'USER_NOT_FOUND: no such user in this account' },
  409: { description: 'LAST_ADMIN: the account would be left without an admin' },
};

export function accountRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/v1/accounts',
      tag: 'accounts',
      summary: 'Register an account with its first (admin) user',
      description: 'Public. Creates the account on the chosen plan and its first user, who is the account admin.',
      auth: 'none',
      body: registerBody,
      responses: { 201: { description: 'Account and admin user created', schema: z.object({ account: accountSchema, user: userSchema }) }, 409: { description: 'E-mail already registered' } },
      handler: async ({ body, call }) => ({ status: 201, body: await registerAccount(deps, call, body) }),
    }),
    route({
      method: 'post',
      path: '/v1/accounts/login',
      tag: 'accounts',
      summary: 'Log in with e-mail and password; returns a JWT access token',
      auth: 'none',
      body: loginBody,
      responses: { 200: { description: 'Access token', schema: loginResponse }, 401: { description: 'Wrong e-mail or password' }, 429: { description: 'Too many failed attempts' } },
      handler: async ({ body, call }) => ({ status: 200, body: await logIn(deps, call, body) }),
    }),
    route({
      method: 'get',
      path: '/v1/accounts/me',
      tag: 'accounts',
      summary: 'The calling user and their account',
      auth: 'any',
      responses: { 200: { description: 'Caller', schema: z.object({ user: userSchema, account: accountSchema, authenticated_via: z.enum(['jwt', 'api_key']) }) } },
      handler: async ({ principal }) => ({ status: 200, body: await describeCaller(deps, principal) }),
    }),
    route({
      method: 'post',
      path: '/v1/accounts/invitations/accept',
      tag: 'accounts',
      summary: 'Accept an invitation: choose your password and log in',
      description: `Public: the token from the invitation e-mail's link (the page at ${SET_PASSWORD_PATH} sends it) is the credential. It works once, within 7 days.`,
      auth: 'none',
      body: acceptBody,
      responses: {
        200: { description: 'Password set; an access token', schema: loginResponse },
        404: { description: 'INVITATION_NOT_FOUND: unknown, already used, or withdrawn' },
        410: { description: 'INVITATION_EXPIRED' },
      },
      handler: async ({ body, call }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await acceptInvitation(deps, call, body) }),
    }),
    route({
      method: 'get',
      path: SET_PASSWORD_PATH,
      tag: 'accounts',
      summary: 'The page an invitation link opens: a form to choose a password',
      auth: 'none',
      produces: 'text/html',
      responses: { 200: { description: 'HTML page' } },
      handler: async () => {
        const nonce = newNonce();
        const base = publicBasePath(deps.config);
        return { status: 200, headers: setPasswordHeaders(nonce), html: renderSetPasswordPage({ serviceName: deps.config.SERVICE_NAME, acceptUrl: `${base}/v1/accounts/invitations/accept`, nonce }) };
      },
    }),
    route({
      method: 'put',
      path: '/v1/accounts/me/password',
      tag: 'accounts',
      summary: 'Change your password',
      description:
        'E.g. to replace the initial password an admin set. Every session token issued before the change stops working; the answer is a fresh login. API keys are unaffected. Wrong current passwords count as failed logins.',
      auth: 'jwt',
      body: passwordChangeBody,
      responses: {
        200: { description: 'Password changed; a fresh access token', schema: loginResponse },
        403: { description: 'ACCESS_DENIED: the current password is wrong, or an API key (a login token is required)' },
        429: { description: 'Too many failed attempts' },
      },
      handler: async ({ body, call }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await changeOwnPassword(deps, call, body) }),
    }),
    route({
      method: 'get',
      path: '/v1/accounts/{account_id}',
      tag: 'accounts',
      summary: 'Read an account the caller belongs to',
      auth: 'any',
      params: uuidParam('account_id'),
      responses: { 200: { description: 'Account', schema: accountSchema }, 403: { description: 'Not your account' } },
      handler: async ({ params, principal }) => ({ status: 200, body: await getAccount(deps, principal, params.account_id as string) }),
    }),
    route({
      method: 'patch',
      path: '/v1/accounts/{account_id}',
      tag: 'accounts',
      summary: "Change the account's plan, billing country or monthly budget cap (account admins only)",
      description:
        'The change applies at once, also to the current month: quota and overage are checked against the settings in force at each upload. Enterprise terms are set by contract (operator command), not here.',
      auth: 'jwt',
      params: uuidParam('account_id'),
      body: settingsBody,
      responses: { 200: { description: 'Account as changed', schema: accountSchema }, 403: { description: 'Not an admin of this account, or an Enterprise change' } },
      handler: async ({ params, body, call }) => ({ status: 200, body: await changeAccountSettings(deps, call, params.account_id as string, body) }),
    }),
    route({
      method: 'get',
      path: '/v1/accounts/{account_id}/users',
      tag: 'accounts',
      summary: "List the account's users",
      auth: 'any',
      params: uuidParam('account_id'),
      responses: { 200: { description: 'Users', schema: z.object({ items: z.array(userSchema), total: z.number().int() }) }, 403: { description: 'Not your account' } },
      handler: async ({ params, principal }) => ({ status: 200, body: await listAccountUsers(deps, principal, params.account_id as string) }),
    }),
    route({
      method: 'post',
      path: '/v1/accounts/{account_id}/users',
      tag: 'accounts',
      summary: 'Add a user to the account (account admins only): invited by e-mail, or with an initial password',
      auth: 'jwt',
      params: uuidParam('account_id'),
      body: addUserBody,
      responses: { 201: { description: 'User created', schema: userSchema }, 403: { description: 'Not an admin of this account' }, 409: { description: 'E-mail already registered' } },
      handler: async ({ params, body, call }) => ({ status: 201, body: await addUser(deps, call, params.account_id as string, body) }),
    }),
    route({
      method: 'patch',
      path: '/v1/accounts/{account_id}/users/{user_id}',
      tag: 'accounts',
      summary: "Change a user's role (account admins only)",
      description: 'The new role applies to the user\'s next request, with a session token or an API key. The last admin of an account cannot become a member.',
      auth: 'jwt',
      params: userParams,
      body: roleBody,
      responses: { 200: { description: 'User as changed', schema: userSchema }, ...manageErrors },
      handler: async ({ params, body, call }) => ({ status: 200, body: await changeUserRole(deps, call, params.account_id, params.user_id, body.role) }),
    }),
    route({
      method: 'delete',
      path: '/v1/accounts/{account_id}/users/{user_id}',
      tag: 'accounts',
      summary: 'Remove a user from the account (account admins only)',
      description:
        "The user's session tokens and API keys stop working at once (the keys are revoked) and the e-mail address can be registered again. Their verifications and comments stay with the account. The last admin cannot be removed.",
      auth: 'jwt',
      params: userParams,
      responses: { 204: { description: 'Removed' }, ...manageErrors },
      handler: async ({ params, call }) => {
        await removeUser(deps, call, params.account_id, params.user_id);
        return { status: 204 };
      },
    }),
  ];
}
