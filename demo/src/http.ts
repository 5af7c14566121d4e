/** The page's requests to its own origin: JSON in, JSON (or the text, if it is not JSON) out. */

export async function getJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function postJson(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await getJson(response) };
}

/** The `reason` member of a refusal body, if it has one. */
export function reasonOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'reason' in body && typeof body.reason === 'string'
    ? body.reason
    : undefined;
}
