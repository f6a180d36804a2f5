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
