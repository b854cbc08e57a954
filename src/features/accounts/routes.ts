import crypto from 'node:crypto';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { accountDecider, accountStream, emailClaimDecider, emailClaimStream, normaliseEmail } from './decider.js';
import { billingCurrency } from './billing.js';
import { plans, selfServicePlans, userRoles } from './events.js';
import { handleCommand } from '../../core/decider.js';
import { AccessDeniedError, AppError, AuthenticationError } from '../../core/errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { issueAccessToken, type Principal } from '../../adapters/http/auth.js';
import { commandContext, execute } from '../../core/commands.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';
import { isoDate, uuidParam } from '../../core/schemas.js';

const email = z.email().max(254);
const password = z.string().min(10, 'Passwords need at least 10 characters.').max(200);
const personName = z.string().trim().min(1).max(120);

const accountSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    plan: z.enum(plans),
    billing_country: z.string(),
    billing_currency: z.enum(['EUR', 'USD']),
    monthly_budget_cap_eur: z.number().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Account');

const userSchema = z
  .object({ id: z.uuid(), account_id: z.uuid(), email: z.string(), name: z.string(), role: z.enum(userRoles), created_at: z.string() })
  .openapi('User');

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

const registerBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).describe('Account (organisation) name.'),
    plan: selfServicePlan.default('free'),
    billing_country: billingCountry.default('DE'),
    monthly_budget_cap_eur: budgetCap.default(null),
    admin: z.strictObject({ email, name: personName, password }),
  })
  .openapi('AccountRegistration');

const settingsBody = z
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

const addUserBody = z.strictObject({ email, name: personName, password, role: z.enum(userRoles).default('member') }).openapi('NewUser');

export function toAccount(row: Record<string, any>): z.infer<typeof accountSchema> {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    billing_country: row.billing_country,
    billing_currency: billingCurrency(row.billing_country),
    monthly_budget_cap_eur: row.monthly_budget_cap_eur === null ? null : Number(row.monthly_budget_cap_eur),
    created_at: isoDate(row.created_at)!,
    updated_at: isoDate(row.updated_at)!,
  };
}

const toUser = (row: Record<string, any>): z.infer<typeof userSchema> => ({
  id: row.id,
  account_id: row.account_id,
  email: row.email,
  name: row.name,
  role: row.role,
  created_at: isoDate(row.created_at)!,
});

/** A user may see and act on their own account only. */
export function assertAccountAccess(principal: Principal, accountId: string): void {
  if (principal.accountId !== accountId) throw new AccessDeniedError('You do not have access to this account.');
}

export function accountRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/accounts',
    tag: 'accounts',
    summary: 'Register an account with its first (admin) user',
    description: 'Public. Creates the account on the chosen plan and its first user, who is the account admin.',
    auth: 'none',
    body: registerBody,
    responses: { 201: { description: 'Account and admin user created', schema: z.object({ account: accountSchema, user: userSchema }) }, 409: { description: 'E-mail already registered' } },
    async handler({ body, req, res }) {
      const accountId = crypto.randomUUID();
      const userId = crypto.randomUUID();
      const passwordHash = await hashPassword(body.admin.password, deps.config.PASSWORD_HASH_COST);
      const context = commandContext(deps, req, null, { type: 'user', id: userId, accountId });
      // The e-mail stream can hold one claim only: this append is the uniqueness check.
      await handleCommand(deps.store, emailClaimStream(body.admin.email), emailClaimDecider, { email: body.admin.email, user_id: userId, account_id: accountId }, context);
      await execute(deps, res, accountStream(accountId), accountDecider, {
        type: 'RegisterAccount',
        account_id: accountId,
        name: body.name,
        plan: body.plan,
        billing_country: body.billing_country,
        monthly_budget_cap_eur: body.monthly_budget_cap_eur,
        admin: { user_id: userId, email: normaliseEmail(body.admin.email), name: body.admin.name, password_hash: passwordHash },
        now: context.now,
      }, context);
      const account = await deps.knex('accounts').where({ id: accountId }).first();
      const user = await deps.knex('users').where({ id: userId }).first();
      return { status: 201, body: { account: toAccount(account), user: toUser(user) } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/accounts/login',
    tag: 'accounts',
    summary: 'Log in with e-mail and password; returns a JWT access token',
    auth: 'none',
    body: loginBody,
    responses: { 200: { description: 'Access token', schema: loginResponse }, 401: { description: 'Wrong e-mail or password' }, 429: { description: 'Too many failed attempts' } },
    async handler({ body, req }) {
      const address = normaliseEmail(body.email);
      const limiterKey = `${address}|${req.ip}`;
      await deps.loginLimiter.check(limiterKey, 'failed login attempts');
      const user = await deps.knex('users').where({ email: address }).first();
      const ok = await verifyPassword(body.password, user?.password_hash ?? (await deps.decoyPasswordHash));
      if (!user || !ok) {
        await deps.loginLimiter.hit(limiterKey);
        throw new AuthenticationError('INVALID_CREDENTIALS', 'Wrong e-mail address or password.', { suggestion: 'Check both and try again.' });
      }
      await deps.loginLimiter.reset(limiterKey);
      const account = await deps.knex('accounts').where({ id: user.account_id }).first();
      const { token, expiresAt } = await issueAccessToken(deps, user);
      return {
        status: 200,
        body: {
          access_token: token,
          token_type: 'bearer',
          expires_in: deps.config.JWT_TTL_SECONDS,
          expires_at: expiresAt.toISOString(),
          user: toUser(user),
          account: toAccount(account),
        },
      };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/accounts/me',
    tag: 'accounts',
    summary: 'The calling user and their account',
    auth: 'any',
    responses: { 200: { description: 'Caller', schema: z.object({ user: userSchema, account: accountSchema, authenticated_via: z.enum(['jwt', 'api_key']) }) } },
    async handler({ principal }) {
      const user = await deps.knex('users').where({ id: principal.userId }).first();
      const account = await deps.knex('accounts').where({ id: principal.accountId }).first();
      return { status: 200, body: { user: toUser(user), account: toAccount(account), authenticated_via: principal.via } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/accounts/{account_id}',
    tag: 'accounts',
    summary: 'Read an account the caller belongs to',
    auth: 'any',
    params: uuidParam('account_id'),
    responses: { 200: { description: 'Account', schema: accountSchema }, 403: { description: 'Not your account' } },
    async handler({ params, principal }) {
      assertAccountAccess(principal, params.account_id as string);
      const account = await deps.knex('accounts').where({ id: params.account_id }).first();
      return { status: 200, body: toAccount(account) };
    },
  });

  defineRoute(router, registry, deps, {
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
    async handler({ params, body, principal, req, res }) {
      const accountId = params.account_id as string;
      assertAccountAccess(principal, accountId);
      const context = commandContext(deps, req, principal);
      await execute(deps, res, accountStream(accountId), accountDecider, { type: 'ChangeSettings', by: { user_id: principal.userId }, changes: body, now: context.now }, context);
      const account = await deps.knex('accounts').where({ id: accountId }).first();
      return { status: 200, body: toAccount(account) };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/accounts/{account_id}/users',
    tag: 'accounts',
    summary: "List the account's users",
    auth: 'any',
    params: uuidParam('account_id'),
    responses: { 200: { description: 'Users', schema: z.object({ items: z.array(userSchema), total: z.number().int() }) }, 403: { description: 'Not your account' } },
    async handler({ params, principal }) {
      assertAccountAccess(principal, params.account_id as string);
      const rows = await deps.knex('users').where({ account_id: params.account_id }).orderBy('created_at');
      return { status: 200, body: { items: rows.map(toUser), total: rows.length } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/accounts/{account_id}/users',
    tag: 'accounts',
    summary: 'Add a user to the account (account admins only)',
    auth: 'jwt',
    params: uuidParam('account_id'),
    body: addUserBody,
    responses: { 201: { description: 'User created', schema: userSchema }, 403: { description: 'Not an admin of this account' }, 409: { description: 'E-mail already registered' } },
    async handler({ params, body, principal, req, res }) {
      const accountId = params.account_id as string;
      assertAccountAccess(principal, accountId);
      if (principal.role !== 'admin') throw new AccessDeniedError('Only an admin of the account can add users.');
      const userId = crypto.randomUUID();
      const context = commandContext(deps, req, principal);
      await handleCommand(deps.store, emailClaimStream(body.email), emailClaimDecider, { email: body.email, user_id: userId, account_id: accountId }, context);
      await execute(deps, res, accountStream(accountId), accountDecider, {
        type: 'AddUser',
        by_user_id: principal.userId,
        user: {
          user_id: userId,
          email: normaliseEmail(body.email),
          name: body.name,
          role: body.role,
          password_hash: await hashPassword(body.password, deps.config.PASSWORD_HASH_COST),
        },
        now: context.now,
      }, context);
      const user = await deps.knex('users').where({ id: userId }).first();
      if (!user) throw new AppError('SERVICE_UNAVAILABLE', 'The user was created but is not readable yet.', { suggestion: 'Retry the read shortly.' });
      return { status: 201, body: toUser(user) };
    },
  });

  return router;
}
