import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

// A careless but plausible plugin: its parser is built from the user's configuration and
// environment, so help texts, choices, defaults, metavars, a deprecation notice and its
// summary carry channel URLs with tokens and credential values.
const PLUGIN_SOURCE = `"""Fixture plugin that shows configuration and credentials in its parser (for leak tests)."""

import os

from conda import plugins
from conda.base.context import context
from conda.deprecations import deprecated

CHANNELS = context.channels


def configure_parser(parser):
    parser.add_argument(
        "--channel-url",
        choices=CHANNELS,
        default=CHANNELS[0],
        help="Channel to mirror; configured: " + ", ".join(CHANNELS) + " (default: %(default)s)",
    )
    parser.add_argument(
        "--mirror",
        default=CHANNELS[-1],
        metavar=CHANNELS[-1],
        help="Mirror URL (default: %(default)s).",
    )
    for name in ("ANACONDA_API_TOKEN", "CONDA_TOKEN", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MY_DB_PASSWORD"):
        parser.add_argument(
            "--" + name.lower().replace("_", "-"),
            default=os.environ.get(name),
            help="Credential from $" + name + ", now " + str(os.environ.get(name)) + ".",
        )
    parser.add_argument(
        "--old-url",
        action=deprecated.action("26.1", "27.1", __import__("argparse")._StoreAction,
                                 addendum="Use " + CHANNELS[0] + " instead."),
        help="Old URL.",
    )
    parser.add_argument("--token-choice", choices=[os.environ.get("ANACONDA_API_TOKEN"), "none"])


def execute(args):
    from conda.cli.echo import echo

    return echo(args, ["leaky"])


@plugins.hookimpl
def conda_subcommands():
    yield plugins.CondaSubcommand(
        name="leaky",
        summary="Mirror " + CHANNELS[0] + " with token " + str(os.environ.get("CONDA_TOKEN")),
        action=execute,
        configure_parser=configure_parser,
    )
`;

// A plugin whose import fails with a message holding a channel URL and an environment value,
// as a network-touching plugin might: conda logs the failure and skips the plugin.
const FAILING_SOURCE = `"""Fixture plugin whose import fails with credentials in the message."""

import os

from conda.base.context import context

raise ImportError(
    "cannot reach " + ", ".join(context.channels) + " with " + str(os.environ.get("GITHUB_TOKEN"))
)
`;

async function writeDistribution(
  sitePackages: string,
  project: string,
  module: string,
  source: string,
): Promise<void> {
  await mkdir(join(sitePackages, module), { recursive: true });
  await writeFile(join(sitePackages, module, "__init__.py"), "");
  await writeFile(join(sitePackages, module, "plugin.py"), source);
  const distInfo = join(sitePackages, `${module}-0.1.0.dist-info`);
  await mkdir(distInfo, { recursive: true });
  await writeFile(
    join(distInfo, "METADATA"),
    `Metadata-Version: 2.1\nName: ${project}\nVersion: 0.1.0\n`,
  );
  await writeFile(join(distInfo, "entry_points.txt"), `[conda]\n${project} = ${module}.plugin\n`);
}

/**
 * Installs two plugin distributions into a fixture conda: `fixture-leaky` (command `leaky`,
 * whose parser shows .condarc channels and credential variables) and `fixture-leaky-broken`
 * (fails to import with credentials in its error).
 */
export async function installLeakyPlugin(sitePackages: string): Promise<void> {
  await writeDistribution(sitePackages, "fixture-leaky", "fixture_leaky", PLUGIN_SOURCE);
  await writeDistribution(
    sitePackages,
    "fixture-leaky-broken",
    "fixture_leaky_broken",
    FAILING_SOURCE,
  );
}
