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

// Words in the names of variables that hold credentials by convention (AWS_SECRET_ACCESS_KEY,
// CONDA_TOKEN, ANACONDA_API_TOKEN, GITHUB_TOKEN, *_PASSWORD, ...), found anywhere in a name of
// any case. Plain substrings: compiling a regular expression cost every start about 0.5 ms.
const CREDENTIAL_WORDS = [
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "APIKEY",
  "API_KEY",
  "ACCESSKEY",
  "ACCESS_KEY",
  "PRIVATEKEY",
  "PRIVATE_KEY",
  "CREDENTIAL",
  "AUTH",
];
// Shorter values (`1`, `true`, `false`) would redact ordinary words everywhere.
const MIN_LENGTH = 6;

/**
 * The values of credential-like environment variables, for redaction wherever text from the
 * target (help, choices, summaries, diagnostics) could repeat them.
 */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_LENGTH && isCredentialName(name))
      values.add(value);
  }
  // Longest first, so a secret that contains another is redacted whole.
  return [...values].sort((a, b) => b.length - a.length);
}

function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return CREDENTIAL_WORDS.some((word) => upper.includes(word));
}
