// Channel tokens (`/t/<token>/`), URL credentials (`user:password@`) and secret-looking query
// parameters can reach help texts and diagnostics through a user's .condarc.
const CHANNEL_TOKEN = /\/t\/[^/\s"'<>]+/g;
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@"'<>]+@/gi;
const SECRET_QUERY =
  /([?&](?:token|access_token|api_key|apikey|key|password|secret|auth)=)[^&\s"'<>]+/gi;

/**
 * Replaces credentials embedded in URLs, and every occurrence of the given secret values (see
 * credentialValues), with `<redacted>`; other text is unchanged.
 */
export function redactSecrets(text: string, secretValues: readonly string[] = []): string {
  let redacted = text;
  for (const secret of secretValues) redacted = redacted.replaceAll(secret, "<redacted>");
  return redacted
    .replace(CHANNEL_TOKEN, "/t/<redacted>")
    .replace(URL_CREDENTIALS, "$1<redacted>@")
    .replace(SECRET_QUERY, "$1<redacted>");
}
