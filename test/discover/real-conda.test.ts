import { expect, test } from "bun:test";
import { describeRealConda, useRealCondaSandbox } from "../support/real-conda.ts";

const sandbox = useRealCondaSandbox();

describeRealConda("discovery", () => {
  test("finds the interpreter and introspects the whole tree, external plugins included", async () => {
    const { discovery } = sandbox();
    const commands = discovery.tree.subcommands.map((sub) => sub.command);
    expect(commands).toEqual(
      expect.arrayContaining(["create", "install", "env", "run", "list", "menuinst", "completion"]),
    );
    expect(discovery.installation.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(discovery.installation.plugins.map((p) => p.project_name)).toEqual(
      expect.arrayContaining(["menuinst", "conda-completion"]),
    );
    expect(discovery.preParser?.option_strings).toEqual(
      expect.arrayContaining(["-v", "--verbose", "--json", "--no-plugins", "--debug", "--trace"]),
    );
  });

  test("reports the version, root prefix and envs dirs conda itself reports", async () => {
    const info = JSON.parse((await sandbox().conda(["info", "--json"])).stdout);
    const { installation } = sandbox().discovery;
    expect(installation.condaVersion).toBe(info.conda_version);
    expect(installation.rootPrefix).toBe(info.root_prefix);
    expect(installation.envsDirs).toEqual(info.envs_dirs);
  });
});
