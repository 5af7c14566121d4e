/**
 * Method-override conventions: the methods a request may run as once an application reads an
 * override header or query parameter, so a table rule is asked for every one of them.
 */

/** Where method-override conventions carry the method an application will run instead. */
const METHOD_OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'];

/**
 * A query key as PHP reads it: leading spaces dropped, then ' ', '.' and '[' turned into '_'
 * (so `.method` and ` method` are `_method`), compared without case; `_method[]` and
 * `_method[0]` (arrays) count too. Reading more keys as overrides only ever asks for more scopes.
 */
const isMethodOverrideKey = (key: string): boolean =>
  /^_method(_|$)/.test(key.trimStart().toLowerCase().replace(/[ .[]/g, '_'));

/**
 * The methods `request` may run as: its own, plus any a method-override convention names — the
 * X-HTTP-Method-Override / X-HTTP-Method / X-Method-Override headers (Express's
 * method-override, ASP.NET, Google APIs), also spelled with `_` (CGI gateways read
 * `X_HTTP_Method_Override` as the same header), and a `_method` query parameter (Laravel,
 * Symfony), also spelled as PHP would read it. Judged by its own method only, a POST allowed
 * with `files:write` could DELETE. Undefined when an override is not a method name.
 */
export function requestMethods(request: Request, url = new URL(request.url)): string[] | undefined {
  const named = [request.method];
  for (const [key, value] of url.searchParams) if (isMethodOverrideKey(key)) named.push(value);
  request.headers.forEach((value, name) => {
    if (METHOD_OVERRIDE_HEADERS.includes(name.replaceAll('_', '-'))) named.push(...value.split(','));
  });
  const methods = new Set<string>();
  for (const name of named) {
    const method = name.trim().toUpperCase();
    if (!/^[A-Z]+$/.test(method)) return undefined;
    methods.add(method);
  }
  return [...methods];
}
