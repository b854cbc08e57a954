/** What the service benchmarks ask of the service over HTTP, written once. */
import net from 'node:net';

/** The response's JSON, or an error naming the URL, the status and the body. */
export async function json(response: Response): Promise<any> {
  const body = await response.json();
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A token of a new account (a unique address per call): the Free plan's 5 pairs a month would
 * stop a longer series on one account.
 */
export async function freshToken(url: string, label = 'bench'): Promise<string> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.eu`;
  const post = (route: string, body: unknown) =>
    fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
  await post('/v1/accounts', { name: label, admin: { email, name: label, password: 'a long enough password' } });
  return (await post('/v1/accounts/login', { email, password: 'a long enough password' })).access_token;
}

/** A port free on loopback now, for a service the bench starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
