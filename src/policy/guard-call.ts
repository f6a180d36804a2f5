import { posix, win32 } from "node:path";
import type { PolicyDecision } from "./check-policy.ts";
import type { CallArgs } from "./classify-call.ts";

/** What the guards need to know about the conda installation and the file system. */
export interface GuardFacts {
  /** conda's root prefix (the base environment). */
  readonly rootPrefix: string;
  /** conda's `envs_dirs`. */
  readonly envsDirs: readonly string[];
  /** The directory conda runs in: relative prefixes are resolved against it, as conda does. */
  readonly cwd: string;
  /** The home directory conda expands a leading `~` to. */
  readonly home: string;
  /** True for a directory holding `conda-meta/`. */
  isCondaEnvironment(prefix: string): boolean;
  /** The prefix of an existing environment with this name, or null. */
  resolveNamedEnv(name: string): string | null;
  /** True when anything exists at the path. */
  pathExists(path: string): boolean;
  /** The path with symlinks resolved, or null when it does not exist; optional. */
  realPath?(path: string): string | null;
}

const ALLOWED: PolicyDecision = { allowed: true };

function refuse(message: string): PolicyDecision {
  return { allowed: false, message: `Refused: ${message}` };
}

// conda still accepts the old name `root` for the base environment.
const BASE_NAMES = new Set(["base", "root"]);

type Resolved = { ok: true; path: string } | { ok: false; why: string };

/** Path helpers in the flavour of the installation (Windows when the root prefix has a drive). */
interface Paths {
  resolve(raw: string): Resolved;
  /** The path and, when the caller can tell, its symlink-free form, in comparable form. */
  forms(path: string): string[];
  /** True when `inner` is `outer` or lies below it. */
  within(inner: string, outer: string): boolean;
}

function pathsFor(facts: GuardFacts): Paths {
  const windows = /^[A-Za-z]:[\\/]|^\\\\/.test(facts.rootPrefix);
  const flavour = windows ? win32 : posix;
  const comparable = (p: string) => {
    const normal = flavour.resolve(p);
    // NTFS compares names case-insensitively; POSIX file systems mostly do not.
    return windows ? normal.toLowerCase() : normal;
  };
  return {
    resolve(raw) {
      // conda expands variables (os.path.expandvars) and `~` before it uses a prefix.
      if (raw.includes("$") || (windows && raw.includes("%"))) {
        return { ok: false, why: "uses an environment variable, which this check cannot expand" };
      }
      let expanded = raw;
      if (raw === "~" || raw.startsWith("~/") || (windows && raw.startsWith("~\\"))) {
        expanded = facts.home + raw.slice(1);
      } else if (raw.startsWith("~")) {
        return { ok: false, why: "names another user's home directory" };
      }
      return { ok: true, path: flavour.resolve(facts.cwd, expanded) };
    },
    forms(path) {
      const forms = [comparable(path)];
      const real = facts.realPath?.(path);
      if (real) forms.push(comparable(real));
      return forms;
    },
    within(inner, outer) {
      if (inner === outer) return true;
      const base = outer.endsWith(flavour.sep) ? outer : outer + flavour.sep;
      return inner.startsWith(base);
    },
  };
}

function text(args: CallArgs, key: string): string | null {
  const value = args[key];
  return typeof value === "string" && value.length > 0 ? value : null;
}

function given(args: CallArgs, key: string): boolean {
  const value = args[key];
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== null && value !== false;
}

/** An environment a call targets: where it lives and which argument named it. */
interface Target {
  /** `"name"` or `"prefix"`, as refusals quote it. */
  source: string;
  /** The environment's prefix; null for a name that names no existing environment. */
  path: string | null;
  isBase: boolean;
}

type TargetResult = { ok: true; targets: Target[] } | { ok: false; decision: PolicyDecision };

/** Both `name` and `prefix` when given: argparse refuses the pair, but each is checked. */
function targetsOf(args: CallArgs, facts: GuardFacts, paths: Paths): TargetResult {
  const rootForms = paths.forms(facts.rootPrefix);
  const isRoot = (path: string) => paths.forms(path).some((f) => rootForms.includes(f));
  const targets: Target[] = [];
  const name = text(args, "name");
  if (name !== null) {
    const path = BASE_NAMES.has(name) ? facts.rootPrefix : facts.resolveNamedEnv(name);
    targets.push({ source: '"name"', path, isBase: path !== null && isRoot(path) });
  }
  const prefix = text(args, "prefix");
  if (prefix !== null) {
    const resolved = paths.resolve(prefix);
    if (!resolved.ok) return { ok: false, decision: refuse(`"prefix" ${resolved.why}.`) };
    targets.push({ source: '"prefix"', path: resolved.path, isBase: isRoot(resolved.path) });
  }
  return { ok: true, targets };
}

/** True when deleting `path` would delete the base environment or an environments folder. */
function holdsOtherEnvironments(path: string, facts: GuardFacts, paths: Paths): boolean {
  const forms = paths.forms(path);
  return [facts.rootPrefix, ...facts.envsDirs].some((protectedPath) =>
    paths.forms(protectedPath).some((p) => forms.some((f) => paths.within(p, f))),
  );
}

function guardRemoval(args: CallArgs, facts: GuardFacts, what: string): PolicyDecision {
  const paths = pathsFor(facts);
  const found = targetsOf(args, facts, paths);
  if (!found.ok) return found.decision;
  if (found.targets.length === 0) {
    return refuse(
      `${what} without "name" or "prefix" would act on the active environment; name the environment.`,
    );
  }
  for (const target of found.targets) {
    if (target.isBase) {
      return refuse(
        `${target.source} names the base environment, which holds conda itself; conda-mcp never ${what}s it.`,
      );
    }
    if (target.path === null) continue; // no such environment: conda reports that itself
    if (holdsOtherEnvironments(target.path, facts, paths)) {
      return refuse(
        `${target.source} points at a directory holding the base environment or an environments folder; ${what} would delete other environments.`,
      );
    }
    if (!facts.isCondaEnvironment(target.path)) {
      return refuse(
        `${target.source} does not point at a conda environment (no conda-meta folder); conda-mcp only deletes environments.`,
      );
    }
  }
  return ALLOWED;
}

function guardCreation(args: CallArgs, facts: GuardFacts, envCreate: boolean): PolicyDecision {
  const paths = pathsFor(facts);
  const found = targetsOf(args, facts, paths);
  if (!found.ok) return found.decision;
  if (found.targets.length === 0) {
    // The environment file then picks the target; `env create --yes` deletes whatever exists
    // there first, and `create --file` asks to (a prompt --yes or --json answers).
    const fileChooses = envCreate
      ? given(args, "yes")
      : given(args, "file") && args.dry_run !== true;
    if (fileChooses) {
      return refuse(
        `without "name" or "prefix" the environment file picks the target, which this check cannot see; pass "name" or "prefix".`,
      );
    }
    return ALLOWED;
  }
  for (const target of found.targets) {
    if (target.isBase) {
      return refuse(
        `${target.source} names the base environment; creating it would replace conda's own installation.`,
      );
    }
    if (target.path === null) continue;
    if (holdsOtherEnvironments(target.path, facts, paths)) {
      return refuse(
        `${target.source} points at a directory holding the base environment or an environments folder.`,
      );
    }
    if (facts.isCondaEnvironment(target.path)) {
      return refuse(
        `${target.source} names an existing environment, which conda would delete before creating it again; change it with install or env update, or remove it first.`,
      );
    }
    if (facts.pathExists(target.path)) {
      return refuse(
        `${target.source} points at an existing path that is not a conda environment; conda would install into it (env create --yes deletes it first). Choose a new path.`,
      );
    }
  }
  return ALLOWED;
}

function guardRename(args: CallArgs, facts: GuardFacts): PolicyDecision {
  const removal = guardRemoval(args, facts, "rename");
  if (!removal.allowed) return removal;
  const destination = text(args, "destination");
  if (destination === null) return ALLOWED; // conda requires it and says so
  const paths = pathsFor(facts);
  const rootForms = paths.forms(facts.rootPrefix);
  let path: string | null;
  // conda reads a destination with a path separator as a prefix, anything else as a name.
  if (destination.includes("/") || destination.includes("\\")) {
    const resolved = paths.resolve(destination);
    if (!resolved.ok) return refuse(`"destination" ${resolved.why}.`);
    path = resolved.path;
  } else {
    path = BASE_NAMES.has(destination) ? facts.rootPrefix : facts.resolveNamedEnv(destination);
  }
  if (path === null) return ALLOWED;
  if (paths.forms(path).some((f) => rootForms.includes(f))) {
    return refuse(
      `"destination" names the base environment; renaming onto it would replace conda's own installation.`,
    );
  }
  if (holdsOtherEnvironments(path, facts, paths)) {
    return refuse(
      `"destination" points at a directory holding the base environment or an environments folder.`,
    );
  }
  if (facts.pathExists(path)) {
    return refuse(
      `"destination" already exists; with --yes conda would replace it. Choose a new name or remove it first.`,
    );
  }
  return ALLOWED;
}

/** Commands that change an existing environment in place. */
function guardInPlace(args: CallArgs, facts: GuardFacts): PolicyDecision {
  const prefix = text(args, "prefix");
  if (prefix === null) return ALLOWED;
  const resolved = pathsFor(facts).resolve(prefix);
  if (!resolved.ok) return refuse(`"prefix" ${resolved.why}.`);
  if (facts.pathExists(resolved.path) && !facts.isCondaEnvironment(resolved.path)) {
    // Writing conda-meta/ into an ordinary folder makes it look like an environment, which a
    // later `remove --all` would then delete whole.
    return refuse(
      `"prefix" points at an existing folder that is not a conda environment; conda-mcp does not turn ordinary folders into environments.`,
    );
  }
  return ALLOWED;
}

/**
 * Disaster guards, run after the class check on every call (typed tools and `conda_execute`)
 * with the arguments as they will be sent: never remove or replace the base environment,
 * never delete a folder that is not a conda environment or that holds other environments,
 * never create over an existing path, never turn an ordinary folder into an environment.
 */
export function guardCall(
  path: readonly string[],
  args: CallArgs,
  facts: GuardFacts,
): PolicyDecision {
  switch (path.join(" ")) {
    case "remove":
      return given(args, "all") ? guardRemoval(args, facts, "remove") : ALLOWED;
    case "env remove":
      return guardRemoval(args, facts, "remove");
    case "create":
      return guardCreation(args, facts, false);
    case "env create":
      return guardCreation(args, facts, true);
    case "rename":
      return guardRename(args, facts);
    case "install":
    case "update":
    case "env update":
    case "env config vars set":
    case "env config vars unset":
      return guardInPlace(args, facts);
    default:
      return ALLOWED;
  }
}
