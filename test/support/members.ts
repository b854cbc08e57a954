import crypto from 'node:crypto';
import type { client, registerAccount } from './service.js';

type Call = ReturnType<typeof client>;
type Account = Awaited<ReturnType<typeof registerAccount>>;

export interface Member {
  user: { id: string; email: string; name: string; role: 'admin' | 'member'; account_id: string };
  token: string;
  email: string;
  password: string;
}

/** An admin adds a user to their account over HTTP; the new user logs in. */
export async function addMember(call: Call, admin: Account, role: 'admin' | 'member' = 'member', name = 'Member'): Promise<Member> {
  const email = `${role}-${crypto.randomUUID()}@org.example`;
  const password = 'member password 1';
  const added = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email, name, password, role } });
  if (added.status !== 201) throw new Error(`adding a user failed: ${added.status} ${JSON.stringify(added.body)}`);
  const login = await call('POST', '/v1/accounts/login', { json: { email, password } });
  if (login.status !== 200) throw new Error(`member login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { user: added.body, token: login.body.access_token as string, email, password };
}
