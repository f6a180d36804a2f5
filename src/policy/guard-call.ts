import type { ParsedCallFacts, TargetFacts, TargetRole } from "./call-facts.ts";
import { checkPolicy, type PolicyDecision, type PolicyOptions } from "./check-policy.ts";

/** The disaster guards; each command that changes anything names one in the policy table. */
export type GuardName =
  | "removal"
  | "removal_or_in_place"
  | "creation"
  | "rename"
  | "in_place"
  | "config_file"
  | "output_file"
  | "package"
  | "tempfiles"
  | "environment_variables"
  | "shell_setup";

const ALLOWED: PolicyDecision = { allowed: true };

function refuse(message: string): PolicyDecision {
  return { allowed: false, message: `Refused: ${message}` };
}

// How refusals name a target: the argument a client can change.
const WHAT: Readonly<Record<TargetRole, string>> = {
  prefix: "the target environment",
  destination: "the destination",
  rc_file: "the configuration file",
  output_file: "the output file",
  tempfiles: "the --tempfiles path",
  pkgs_dir: "the pkgs_dirs entry",
};

/** How a refusal names a target: its role and the path conda computed. */
function where(target: TargetFacts): string {
  return `${WHAT[target.role]} (${target.path})`;
}

type Found = { ok: true; target: TargetFacts | null } | { ok: false; decision: PolicyDecision };

function targetOf(facts: ParsedCallFacts, role: TargetRole): Found {
  const target = facts.targets.find((t) => t.role === role) ?? null;
  if (target !== null || facts.target_error === null) return { ok: true, target };
  return { ok: false, decision: unknownTarget(facts.target_error) };
}

// conda could not work out the path itself; it would stop there too, but only it can say.
function unknownTarget(error: string): PolicyDecision {
  return refuse(`conda could not tell which path this call acts on: ${error}`);
}

/** Deleting a whole directory: only a conda environment that holds nothing else of conda's. */
function guardDeletion(target: TargetFacts, verb: string): PolicyDecision {
  if (!target.exists) return ALLOWED; // conda reports the missing environment itself
  if (target.is_base) {
    return refuse(
      `${where(target)} is the base environment, which holds conda itself; conda-mcp never ${verb}s it.`,
    );
  }
  if (target.holds_installation) {
    return refuse(
      `${where(target)} holds the base environment, an environments folder or a package cache; ${verb} would delete them.`,
    );
  }
  if (!target.is_environment) {
    return refuse(
      `${where(target)} is not a conda environment (no conda-meta/history); conda-mcp only deletes environments.`,
    );
  }
  // Absent means conda-mcp did not search, which for a deletion is as bad as not knowing.
  if (target.nested_environment !== false) {
    const how =
      target.nested_environment === null ? "may hold (it is too large to search)" : "holds";
    return refuse(
      `${where(target)} ${how} another environment below it, which ${verb} would delete too.`,
    );
  }
  return ALLOWED;
}

/** rename deletes its source, and conda lets it delete a frozen one. */
function guardRenamed(target: TargetFacts): PolicyDecision {
  if (target.is_frozen === true) {
    return refuse(`${where(target)} is frozen; conda rename would delete it.`);
  }
  return guardDeletion(target, "rename");
}

/** A path conda would create an environment at, or move one to: it must not exist yet. */
function guardNewPath(target: TargetFacts): PolicyDecision {
  // An environment inside a conda-meta folder makes its parent look like an environment.
  if (/[\\/]conda-meta(?:[\\/]|$)/.test(target.path)) {
    return refuse(`${where(target)} lies inside a conda-meta folder.`);
  }
  if (target.is_base) {
    return refuse(
      `${where(target)} is the base environment; replacing it would replace conda's own installation.`,
    );
  }
  if (target.is_environment) {
    return refuse(
      `${where(target)} is an existing environment, which conda would delete first; change it with install or env update, or remove it first.`,
    );
  }
  if (target.exists) {
    return refuse(
      `${where(target)} already exists and is not a conda environment; conda would install into it or move it away. Choose a new path.`,
    );
  }
  return ALLOWED;
}

/** Where rename moves an environment: a new path, and not inside the environment it deletes. */
function guardDestination(target: TargetFacts): PolicyDecision {
  if (target.inside_source === true) {
    return refuse(
      `${where(target)} lies inside the environment renamed; conda would delete it with the source.`,
    );
  }
  return guardNewPath(target);
}

/** An environment changed in place: conda-mcp never turns an ordinary folder into one. */
function guardExisting(target: TargetFacts): PolicyDecision {
  if (!target.exists || target.is_environment) return ALLOWED;
  // Writing conda-meta/ into an ordinary folder makes it look like an environment, which a
  // later `remove --all` would then delete whole.
  return refuse(
    `${where(target)} exists but is not a conda environment; conda-mcp does not turn ordinary folders into environments.`,
  );
}

function guardConfigFile(target: TargetFacts): PolicyDecision {
  if (target.is_config === true) return ALLOWED;
  // A new file holds only conda's settings, but a shell or a hook would run it by its name.
  if (!target.exists) {
    return refuse(
      `${where(target)} is not named as conda names its configuration files (.condarc, condarc, *.condarc, *.yml, *.yaml).`,
    );
  }
  // conda would rewrite whatever is there as YAML: an ordinary file's text would be lost.
  return refuse(
    `${where(target)} is not a conda configuration file; conda would overwrite it. Name a .condarc file or a new path.`,
  );
}

/** The settings a `config` call sets (`--set KEY VALUE`) or removes (`--remove-key KEY`). */
export function settingsSetOrRemoved(values: ParsedCallFacts["values"]): unknown[] {
  const set = Array.isArray(values.set) ? values.set : [];
  const removed = Array.isArray(values.remove_key) ? values.remove_key : [];
  return [...set.map((pair) => (Array.isArray(pair) ? pair[0] : pair)), ...removed];
}

// conda's names of its root prefix: setting it moves base, and base's package cache with it,
// away from what the guards protect.
const ROOT_PREFIX_SETTINGS = ["root_prefix", "root_dir"];

/**
 * A folder added to pkgs_dirs becomes a package cache: conda deletes what it takes for broken
 * packages there, and `clean --force-pkgs-dirs` deletes the whole folder.
 */
function guardPkgsDirs(facts: ParsedCallFacts): PolicyDecision {
  for (const target of facts.targets.filter((t) => t.role === "pkgs_dir")) {
    if (target.is_relative !== false) {
      return refuse(
        `${where(target)} is a relative path; every later conda call would resolve it against its own working directory. Give an absolute path.`,
      );
    }
    if (target.exists && target.is_package_cache !== true) {
      return refuse(
        `${where(target)} exists and is not one of conda's package caches; conda would delete files in it as broken packages, and clean --force-pkgs-dirs the whole folder. Name a new folder.`,
      );
    }
  }
  return ALLOWED;
}

function guardOutputFile(target: TargetFacts, options: PolicyOptions): PolicyDecision {
  if (target.is_dir) return refuse(`${where(target)} is a directory.`);
  if (target.named_as_export === false) {
    return refuse(
      `${where(target)} is not named as conda's export formats name their files (environment.yml, requirements.txt and the like); a shell or a hook could run it.`,
    );
  }
  if (!target.exists) return ALLOWED;
  // conda truncates an existing file: replacing content is more than a routine write.
  const decision = checkPolicy("destructive", options);
  if (decision.allowed) return ALLOWED;
  return {
    allowed: false,
    message: `${WHAT.output_file} exists and would be overwritten. ${decision.message}`,
  };
}

/** `package --reset` deletes every file no package owns: only in an environment, never base. */
function guardPackage(target: TargetFacts, values: ParsedCallFacts["values"]): PolicyDecision {
  if (target.is_base) {
    return refuse(
      `${where(target)} is the base environment; conda package works on other environments only here.`,
    );
  }
  if (target.exists && !target.is_environment) {
    return refuse(
      `${where(target)} is not a conda environment; conda package would take or delete its files.`,
    );
  }
  if (values.reset !== true) return ALLOWED;
  if (!target.exists) return refuse(`${where(target)} does not exist.`);
  // conda checks frozen environments in install, update, remove and env update only.
  return target.is_frozen === true
    ? refuse(`${where(target)} is frozen; conda package --reset would delete its files.`)
    : ALLOWED;
}

/** The tarball `package` builds: in the working directory, under a plain name. */
function guardTarball(target: TargetFacts, options: PolicyOptions): PolicyDecision {
  if (target.plain_name === false) {
    return refuse(
      "the package's name, version and build must not hold a path separator; conda would write the tarball, and each install its record, at that path.",
    );
  }
  return guardOutputFile(target, options);
}

// conda's activation scripts write each variable into shell code unescaped (`export NAME='VALUE'`,
// `setenv NAME "VALUE"`, `$Env:NAME = "VALUE"`): these would end the quotes or run a command.
// `$NAME` only expands; `$(` runs a command in fish and PowerShell.
const SHELL_ACTIVE = /['"`\r\n]|\$\(/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `env config vars set/unset`: variables every later activation of the environment sets, so
 * only plain names and values that no shell reads as code; never in a frozen environment,
 * which conda itself does not check here.
 */
function guardVariables(target: TargetFacts, values: ParsedCallFacts["values"]): PolicyDecision {
  const existing = guardExisting(target);
  if (!existing.allowed) return existing;
  if (target.is_frozen === true) {
    return refuse(`${where(target)} is frozen; conda-mcp does not change its variables.`);
  }
  return checkVariables(Array.isArray(values.vars) ? values.vars : [], "variable");
}

/** NAME=VALUE entries an environment's activation will set: plain, and not shell code. */
function checkVariables(vars: readonly unknown[], label: string): PolicyDecision {
  for (const [index, entry] of vars.entries()) {
    const [name = "", ...rest] = String(entry).split("=");
    if (!VARIABLE_NAME.test(name.trim())) {
      return refuse(
        `${label} ${index + 1}'s name is not a plain variable name (letters, digits, _).`,
      );
    }
    if (SHELL_ACTIVE.test(rest.join("="))) {
      return refuse(
        `${label} ${index + 1}'s value holds a quote, a backtick, $( or a line break, which conda's activation scripts would run as shell code.`,
      );
    }
  }
  return ALLOWED;
}

/** The variables of a call's environment files; a file conda-mcp could not read is refused. */
function guardFileVariables(facts: ParsedCallFacts): PolicyDecision {
  if (facts.target_error !== null) return unknownTarget(facts.target_error);
  return checkVariables(facts.file_variables ?? [], "the environment file's variable");
}

/**
 * `clean --tempfiles PATH`: conda deletes every `*.c~` and `*.trash` file below PATH, which only an
 * environment's own leftovers should be; base is an environment like any other here.
 */
function guardTempfiles(facts: ParsedCallFacts): PolicyDecision {
  if (facts.target_error !== null) return unknownTarget(facts.target_error);
  for (const target of facts.targets.filter((t) => t.role === "tempfiles")) {
    if (!target.is_environment) {
      return refuse(
        `${where(target)} is not a conda environment; conda would delete the temporary files anywhere below it.`,
      );
    }
  }
  return ALLOWED;
}

function withTarget(
  facts: ParsedCallFacts,
  role: TargetRole,
  guard: (target: TargetFacts) => PolicyDecision,
): PolicyDecision {
  const found = targetOf(facts, role);
  if (!found.ok) return found.decision;
  // Only an output file is optional; conda-mcp refuses what it cannot check.
  if (found.target === null) {
    return role === "output_file" ? ALLOWED : refuse(`conda named no ${WHAT[role]} for this call.`);
  }
  return guard(found.target);
}

/**
 * The disaster guards, decided from conda's own account of the call (its parse, its context,
 * its name resolution and environment files): never delete or replace the base environment,
 * never delete a folder that is not an environment or that holds another, never create over
 * an existing path, never turn an ordinary folder into an environment, never overwrite a file
 * that is not conda's configuration. No startup option lifts them.
 */
export function guardCall(
  guard: GuardName,
  facts: ParsedCallFacts,
  options: PolicyOptions,
): PolicyDecision {
  switch (guard) {
    case "removal":
      return withTarget(facts, "prefix", (t) => guardDeletion(t, "remove"));
    case "removal_or_in_place":
      return facts.values.all === true
        ? withTarget(facts, "prefix", (t) => guardDeletion(t, "remove"))
        : withTarget(facts, "prefix", guardExisting);
    case "creation": {
      const created = withTarget(facts, "prefix", guardNewPath);
      return created.allowed ? guardFileVariables(facts) : created;
    }
    case "rename": {
      const source = withTarget(facts, "prefix", guardRenamed);
      return source.allowed ? withTarget(facts, "destination", guardDestination) : source;
    }
    case "in_place": {
      const changed = withTarget(facts, "prefix", guardExisting);
      return changed.allowed ? guardFileVariables(facts) : changed;
    }
    case "config_file": {
      // Settings from stdin could lift protect_frozen_envs or add any folder to pkgs_dirs.
      if (facts.values.stdin === true) {
        return refuse(
          "conda-mcp does not check settings read from stdin; give them with --set, --append or --prepend.",
        );
      }
      const root = settingsSetOrRemoved(facts.values).find((key) =>
        ROOT_PREFIX_SETTINGS.includes(String(key)),
      );
      if (root !== undefined) {
        return refuse(
          `conda-mcp does not change ${root}: it would move the base environment and its package cache away from what the guards protect.`,
        );
      }
      const rcFile = withTarget(facts, "rc_file", guardConfigFile);
      return rcFile.allowed ? guardPkgsDirs(facts) : rcFile;
    }
    case "output_file":
      return withTarget(facts, "output_file", (t) => guardOutputFile(t, options));
    case "package": {
      const prefix = withTarget(facts, "prefix", (t) => guardPackage(t, facts.values));
      return prefix.allowed
        ? withTarget(facts, "output_file", (t) => guardTarball(t, options))
        : prefix;
    }
    case "tempfiles":
      return guardTempfiles(facts);
    case "environment_variables":
      return withTarget(facts, "prefix", (t) => guardVariables(t, facts.values));
    case "shell_setup":
      // `init --dev` deletes base's conda and links base to the source tree in the cwd.
      return facts.values.dev === true
        ? refuse("conda init --dev replaces the base environment's conda with a source checkout.")
        : ALLOWED;
  }
}
