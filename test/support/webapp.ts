/** Driving the web app (/app) over HTTP as a browser without JavaScript would: cookies and forms by hand. */

export interface AppResponse {
  status: number;
  location: string | null;
  setCookie: string[];
  headers: Record<string, string>;
  text: string;
}

export async function appRequest(baseUrl: string, method: 'GET' | 'POST', path: string, options: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<AppResponse> {
  const headers: Record<string, string> = { ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers };
  let body: string | undefined;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), setCookie: response.headers.getSetCookie(), headers: Object.fromEntries(response.headers), text: await response.text() };
}

/** `name=value` of the Set-Cookie named `name`, for a Cookie header. */
export function cookieFrom(response: AppResponse, name: string): string | undefined {
  const line = response.setCookie.find((c) => c.startsWith(`${name}=`));
  return line?.split(';')[0];
}

export function csrfIn(page: string): string {
  const token = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('the page has no csrf_token field');
  return token;
}

export interface AppSignIn {
  /** The Cookie header a signed-in browser sends (session and login cookies). */
  cookie: string;
  /** The session's CSRF token, from the first page after sign-in. */
  csrf: string;
  /** The sign-in answer (its Set-Cookie is the session cookie). */
  response: AppResponse;
}

/** Opens the sign-in page, sends the form, follows to the list; throws unless it signs in. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<AppSignIn> {
  const loginPage = await appRequest(baseUrl, 'GET', '/app/login');
  const loginCookie = cookieFrom(loginPage, 'pv_app_login')!;
  const response = await appRequest(baseUrl, 'POST', '/app/login', { cookie: loginCookie, form: { csrf_token: csrfIn(loginPage.text), email, password } });
  const session = cookieFrom(response, 'pv_app_session');
  if (response.status !== 303 || !session) throw new Error(`sign-in answered ${response.status}: ${response.text.slice(0, 300)}`);
  const cookie = `${loginCookie}; ${session}`;
  const list = await appRequest(baseUrl, 'GET', '/app/verifications', { cookie });
  return { cookie, csrf: csrfIn(list.text), response };
}
