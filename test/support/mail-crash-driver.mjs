// The service (compiled, as `npm start` runs it) plus a driver: registers an account through
// its own HTTP API, queues MAIL_COUNT messages for it with queueMail, prints one line
// `MAIL-CRASH-DRIVER {"token","ids"}` and keeps serving until killed.
// Used by test/mail/crash.test.ts: no HTTP endpoint queues mail by itself yet.
import { systemContext } from '../../dist/src/core/es/commands.js';
import { loadConfig } from '../../dist/src/core/config.js';
import { queueMail } from '../../dist/src/features/mail/use-cases.js';
import { startService } from '../../dist/src/service.js';

const service = await startService(loadConfig());
const post = async (route, json, token) => {
  const response = await fetch(`${service.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(json),
  });
  if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  return response.json();
};
const admin = { email: `crash-${Date.now()}@example.eu`, name: 'Crash Test', password: 'a long enough password' };
const registered = await post('/v1/accounts', { name: 'Crash test account', admin });
const { access_token: token } = await post('/v1/accounts/login', { email: admin.email, password: admin.password });
const accountId = registered.account.id;
const prefix = process.env.MAIL_ID_PREFIX ?? 'crash';
const ids = [];
for (let i = 1; i <= Number(process.env.MAIL_COUNT ?? 3); i++) {
  const id = `${prefix}-${i}`;
  ids.push(id);
  const context = systemContext(service.deps, { actor: { type: 'user', id: registered.user.id }, correlationId: id, accountId });
  await queueMail(service.deps, context, {
    id,
    to: `reader-${i}@example.eu`,
    subject: `Crash test message ${i}`,
    text: `Message ${i}: ${service.deps.config.PUBLIC_BASE_URL}/r/${id}`,
    html: `<p>Message ${i}: <a href="${service.deps.config.PUBLIC_BASE_URL}/r/${id}">report</a></p>`,
    accountId,
  });
}
process.stdout.write(`MAIL-CRASH-DRIVER ${JSON.stringify({ token, ids })}\n`);
