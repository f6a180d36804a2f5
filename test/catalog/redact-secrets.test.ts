import { expect, test } from "bun:test";
import { redactSecrets } from "../../src/catalog/redact-secrets.ts";

test.each([
  [
    "https://conda.anaconda.org/t/tk-123-abc/conda-forge",
    "https://conda.anaconda.org/t/<redacted>/conda-forge",
  ],
  [
    "see https://user:hunter2@repo.example.com/channel now",
    "see https://<redacted>@repo.example.com/channel now",
  ],
  ["https://repo.example.com/c?token=abc&x=1", "https://repo.example.com/c?token=<redacted>&x=1"],
  ["plain help text with a path /opt/conda/bin", "plain help text with a path /opt/conda/bin"],
])("redactSecrets(%j) hides the credential", (input, expected) => {
  expect(redactSecrets(input)).toBe(expected);
});
