"""Dump conda's argparse tree as JSON on stdout (conda-mcp's introspection).

Run by the target conda's own interpreter (source on stdin, `python -B -`). It builds the parser
the way `conda.cli.main.main_subshell` does and describes every parser and action without
running any command. stdout carries one JSON object a line, so that the server checks each while
the next is made: the site folders; the installation's facts (`"ok": true`); each top-level
command with the actions first seen in it, conda's own first; the plugins' facts, as soon as a
command needs them (before the first one a plugin registers); and last the root parser with the
remaining actions. A line `"ok": false` (an IntrospectionFailure) ends it early. Nothing is
written to disk.
Supports conda 23.x to 26.x; API differences are guarded by feature checks.
"""

import sys

# First of all: with `python -` the working directory is first on sys.path, so a stray json.py
# or conda/ there would be imported instead of the real ones.
if sys.path and sys.path[0] == "":
    del sys.path[0]

import json  # noqa: E402
import os  # noqa: E402

OLDEST_SUPPORTED_MAJOR = 23


class Failure(Exception):
    """An expected way to fail, reported as an IntrospectionFailure document."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def qualname(obj):
    """`module.QualName` of a class or function; builtins keep their bare name."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if module in (None, "builtins"):
        return name
    return f"{module}.{name}"


def class_name(cls):
    """`module.QualName` of a class, builtins included (`builtins.PendingDeprecationWarning`)."""
    return f"{cls.__module__}.{cls.__qualname__}"


def safe_repr(value):
    try:
        return repr(value)
    except Exception as error:  # a broken __repr__ must not stop the dump
        return f"<unrepresentable {type(value).__name__}: {type(error).__name__}>"


def to_json(value, _depth=0):
    """(ok, value): the value as plain JSON when it is one, else (False, None)."""
    if value is None or isinstance(value, (bool, str)):
        return True, value
    if isinstance(value, int):
        return True, value
    if isinstance(value, float):
        return (value == value and value not in (float("inf"), float("-inf"))), value
    if _depth > 20:
        return False, None
    if isinstance(value, (list, tuple)):
        items = []
        for item in value:
            ok, plain = to_json(item, _depth + 1)
            if not ok:
                return False, None
            items.append(plain)
        return True, items
    if isinstance(value, dict):
        mapping = {}
        for key, item in value.items():
            ok, plain = to_json(item, _depth + 1)
            if not ok or not isinstance(key, str):
                return False, None
            mapping[key] = plain
        return True, mapping
    return False, None


def find_null_sentinels():
    """conda's NULL objects, wherever this version defines them."""
    sentinels = []
    for module_name in ("conda.base.constants", "conda.common.constants", "conda.auxlib"):
        try:
            module = __import__(module_name, fromlist=["NULL"])
        except Exception:
            continue
        null = getattr(module, "NULL", None)
        if null is not None and all(null is not known for known in sentinels):
            sentinels.append(null)
    return sentinels


# One encoder for every action's key: json.dumps builds a new one per call when given options.
ACTION_KEY_ENCODER = json.JSONEncoder(sort_keys=True, default=safe_repr)

NARGS_KINDS = {
    None: "None (exactly one value, or flag for 0-arg actions)",
    "?": "OPTIONAL",
    "*": "ZERO_OR_MORE",
    "+": "ONE_OR_MORE",
    "...": "REMAINDER",
    "A...": "PARSER",
}


def collection_kind(value):
    """`list`, `tuple`, or `dict-keys` for a mapping (argparse checks membership in its keys)."""
    if isinstance(value, dict):
        return "dict-keys"
    return type(value).__name__


class TreeDumper:
    """Describes parsers and actions; holds what every description needs, and the table of
    distinct action descriptions the parsers refer to by index."""

    def __init__(self, argparse_module, nulls, find_plugins):
        self.argparse = argparse_module
        # By identity: a sentinel is one object (the modules that define it keep it alive).
        self.null_ids = {id(null) for null in nulls}
        # Subcommand name -> (plugin name, distribution), found on first need (see plugins()).
        self.find_plugins = find_plugins
        self.plugin_index = None
        self.actions = []
        self.actions_sent = 0
        self.action_indexes = {}
        self.class_names = {}

    def class_names_of(self, cls):
        """(class name, MRO names): conda's few action classes, named once for all actions."""
        names = self.class_names.get(cls)
        if names is None:
            names = self.class_names[cls] = (
                class_name(cls),
                [class_name(base) for base in cls.__mro__ if base is not object],
            )
        return names

    def action_index(self, described):
        """The description's place in the table, added on first sight: conda gives every parser
        its own copy of the options they share (--json, --yes, ...), so most of them repeat."""
        key = ACTION_KEY_ENCODER.encode(described)
        index = self.action_indexes.get(key)
        if index is None:
            index = self.action_indexes[key] = len(self.actions)
            self.actions.append(described)
        return index

    def new_actions(self):
        """The descriptions added to the table since the last call, for the line that uses them."""
        new = self.actions[self.actions_sent:]
        self.actions_sent = len(self.actions)
        return new

    def is_null(self, value):
        return id(value) in self.null_ids

    def value_fields(self, value, prefix):
        suppress = self.argparse.SUPPRESS
        if self.is_null(value):
            return {f"{prefix}_repr": "NULL", prefix: None, "null": True, "suppress": False}
        ok, plain = to_json(value)
        return {
            f"{prefix}_repr": safe_repr(value),
            prefix: plain if ok else None,
            "null": False,
            "suppress": isinstance(value, str) and value == suppress,
        }

    def choices_of(self, action):
        argparse = self.argparse
        if isinstance(action, argparse._SubParsersAction):
            return None, None
        lazy = hasattr(action, "choices_func")
        choices = action.choices
        if choices is None:
            return None, None
        kind = collection_kind(choices)
        values = []
        for choice in choices:
            ok, plain = to_json(choice)
            values.append(plain if ok else safe_repr(choice))
        return values, (f"lazy:{kind}" if lazy else kind)

    def deprecation_of(self, action):
        if not hasattr(action, "deprecation"):
            return None
        mro = type(action).__mro__
        wrapped = None
        for index, cls in enumerate(mro):
            if cls.__name__ == "DeprecationMixin" and index + 1 < len(mro):
                wrapped = class_name(mro[index + 1])
                break
        category = getattr(action, "category", None)
        return {
            "message": str(action.deprecation),
            "category": class_name(category) if isinstance(category, type) else safe_repr(category),
            "wrapped_action": wrapped,
        }

    def describe_action(self, action, group_of, exclusive_of):
        argparse = self.argparse
        cls = type(action)
        name, mro = self.class_names_of(cls)
        const = self.value_fields(action.const, "const")
        default = self.value_fields(action.default, "default")
        choices, choices_kind = self.choices_of(action)
        type_callable = action.type
        help_text = action.help
        help_suppressed = help_text == argparse.SUPPRESS
        metavar = action.metavar
        if isinstance(metavar, tuple):
            metavar = list(metavar)
        elif metavar is not None and not isinstance(metavar, str):
            metavar = safe_repr(metavar)
        nargs = action.nargs
        described = {
            "class": name,
            "mro": list(mro),
            "option_strings": list(action.option_strings),
            "positional": not action.option_strings,
            "dest": action.dest,
            "nargs": nargs,
            "nargs_kind": "int" if isinstance(nargs, int) else NARGS_KINDS.get(nargs, str(nargs)),
            "const_repr": const["const_repr"],
            "const": const["const"],
            "default_repr": default["default_repr"],
            "default": default["default"],
            "default_is_suppress": default["suppress"],
            "default_is_conda_NULL": default["null"],
            "type": None
            if type_callable is None
            else getattr(type_callable, "__name__", None) or safe_repr(type_callable),
            "type_qualname": None if type_callable is None else qualname(type_callable),
            "choices": choices,
            "choices_kind": choices_kind,
            "required": bool(action.required),
            "help": None if help_suppressed or help_text is None else str(help_text),
            "help_suppressed": help_suppressed,
            "metavar": metavar,
            "argument_group": group_of.get(id(action)),
            "mutually_exclusive_group": exclusive_of.get(id(action)),
            "deprecated": self.deprecation_of(action),
        }
        if hasattr(action, "choices_func"):
            described["choices_func"] = qualname(action.choices_func)
        if isinstance(action, argparse._VersionAction):
            described["version"] = getattr(action, "version", None)
        if isinstance(action, argparse._SubParsersAction):
            described["subparsers"] = {
                "required": bool(action.required),
                "dest": action.dest,
                "parser_class": class_name(action._parser_class),
                "greedy_subparsers_action": cls.__name__ == "_GreedySubParsersAction",
                "names": list(action._name_parser_map),
            }
        return described

    def plugins(self):
        """The plugin index, found the first time a description needs it (or the root's)."""
        if self.plugin_index is None:
            self.plugin_index = self.find_plugins()
        return self.plugin_index

    def plugin_of(self, parser):
        subcommand = parser._defaults.get("_plugin_subcommand")
        if subcommand is None:
            return None
        name = getattr(subcommand, "name", None)
        plugin_name, distribution = self.plugins().get(name, (None, None))
        action = getattr(subcommand, "action", None)
        configure = getattr(subcommand, "configure_parser", None)
        return {
            "name": name,
            "aliases": list(getattr(subcommand, "aliases", None) or ()),
            "summary": getattr(subcommand, "summary", None),
            "action": qualname(action) if action is not None else None,
            "configure_parser": qualname(configure) if configure is not None else None,
            "plugin_name": plugin_name,
            "distribution": distribution,
            "external": distribution is not None,
        }

    def describe_groups(self, parser):
        """The parser's argument groups and mutually exclusive groups, and each action's."""
        group_of = {}
        argument_groups = []
        for group in parser._action_groups:
            argument_groups.append(
                {
                    "title": group.title,
                    "description": group.description,
                    "dests": [action.dest for action in group._group_actions],
                }
            )
            for action in group._group_actions:
                group_of.setdefault(id(action), group.title)
        exclusive_of = {}
        exclusive_groups = []
        for index, group in enumerate(parser._mutually_exclusive_groups):
            container = getattr(group, "_container", None)
            exclusive_groups.append(
                {
                    "index": index,
                    "required": bool(group.required),
                    "container_title": getattr(container, "title", None),
                    "actions": [
                        action.option_strings[-1] if action.option_strings else action.dest
                        for action in group._group_actions
                    ],
                }
            )
            for action in group._group_actions:
                exclusive_of[id(action)] = {"index": index, "required": bool(group.required)}
        return argument_groups, group_of, exclusive_groups, exclusive_of

    def describe_parser(self, parser, path, aliases, help_text, on_subcommand=None):
        """The parser's description; with on_subcommand, each direct subcommand goes to it as soon
        as it is described instead of into the description's `subcommands`."""
        argparse = self.argparse
        argument_groups, group_of, exclusive_groups, exclusive_of = self.describe_groups(parser)
        actions = []
        subcommands = []
        for action in parser._actions:
            actions.append(self.action_index(self.describe_action(action, group_of, exclusive_of)))
            if isinstance(action, argparse._SubParsersAction):
                subcommands.extend(self.describe_subparsers(action, path, on_subcommand))

        help_actions = [a for a in parser._actions if isinstance(a, argparse._HelpAction)]
        defaults = {}
        for key, value in parser._defaults.items():
            ok, plain = to_json(value)
            defaults[key] = plain if ok else ("NULL" if self.is_null(value) else safe_repr(value))
        return {
            "path": list(path),
            "command": " ".join(path),
            "prog": parser.prog,
            "aliases": aliases,
            "help": help_text,
            "description": parser.description,
            "epilog": parser.epilog,
            "usage": parser.usage,
            "parser_class": class_name(type(parser)),
            "formatter_class": class_name(parser.formatter_class)
            if isinstance(parser.formatter_class, type)
            else safe_repr(parser.formatter_class),
            "add_help": bool(help_actions),
            "help_option_strings": list(help_actions[0].option_strings) if help_actions else [],
            "greedy": bool(getattr(parser, "greedy", False)),
            "prefix_chars": parser.prefix_chars,
            "allow_abbrev": bool(parser.allow_abbrev),
            "defaults": defaults,
            "plugin": self.plugin_of(parser),
            "argument_groups": argument_groups,
            "mutually_exclusive_groups": exclusive_groups,
            "actions": actions,
            "subcommands": subcommands,
        }

    def describe_subparsers(self, action, path, on_subcommand=None):
        help_by_name = {}
        canonical = []
        for choice_action in action._choices_actions:
            help_by_name[choice_action.dest] = choice_action.help
            canonical.append(choice_action.dest)
        names_by_parser = {}
        for name, parser in action._name_parser_map.items():
            names_by_parser.setdefault(id(parser), []).append(name)
        chosen = []
        seen = set()
        # Subparsers added with help=SUPPRESS have no choice action: fall back to map order.
        for name in canonical + list(action._name_parser_map):
            parser = action._name_parser_map.get(name)
            if parser is None or id(parser) in seen:
                continue
            seen.add(id(parser))
            chosen.append((name, parser))
        # Described in the order they are listed, so that each can be sent as soon as it is: at
        # the root conda's own commands first, so that those go out while Python still looks
        # for the plugins (see introspect).
        chosen.sort(key=lambda item: item[0])
        if on_subcommand is not None:
            chosen.sort(key=lambda item: item[1]._defaults.get("_plugin_subcommand") is not None)
        described = []
        for name, parser in chosen:
            aliases = [other for other in names_by_parser[id(parser)] if other != name]
            help_text = help_by_name.get(name)
            if help_text == self.argparse.SUPPRESS:
                help_text = None
            subcommand = self.describe_parser(parser, [*path, name], aliases, help_text)
            if on_subcommand is None:
                described.append(subcommand)
            else:
                on_subcommand(subcommand)
        return described


def import_conda():
    try:
        import conda
    except Exception as error:
        raise Failure("IMPORT_FAILED", f"could not import conda ({type(error).__name__}: {error})")
    version = str(getattr(conda, "__version__", "") or "")
    major = version.split(".", 1)[0]
    if not major.isdigit():
        raise Failure("UNSUPPORTED_CONDA", f"conda reports no usable version ({version!r})")
    if int(major) < OLDEST_SUPPORTED_MAJOR:
        raise Failure(
            "UNSUPPORTED_CONDA",
            f"conda {version} is older than {OLDEST_SUPPORTED_MAJOR}.1, the oldest supported",
        )
    try:
        from conda.cli import conda_argparse
    except Exception as error:
        raise Failure(
            "IMPORT_FAILED",
            f"could not import conda.cli.conda_argparse ({type(error).__name__}: {error})",
        )
    if not callable(getattr(conda_argparse, "generate_parser", None)):
        raise Failure(
            "UNSUPPORTED_CONDA", f"conda {version} has no conda.cli.conda_argparse.generate_parser"
        )
    return conda, version, conda_argparse


def call_flexibly(function, **kwargs):
    """Call with keyword arguments, or without when this conda's signature lacks them."""
    import inspect

    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function(**kwargs)
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    usable = {k: v for k, v in kwargs.items() if accepts_any or k in parameters}
    return function(**usable)


def plugin_manager_of(context):
    manager = getattr(context, "plugin_manager", None)
    if manager is not None:
        return manager
    try:
        from conda.plugins.manager import get_plugin_manager
    except Exception:
        return None
    return get_plugin_manager()


def build_parser():
    """Build conda's full parser as `main_subshell` does; returns (parser, version, context)."""
    # argparse names the program after argv[0]; conda's entry script is called `conda`.
    sys.argv = ["conda"]
    _conda, version, conda_argparse = import_conda()
    try:
        from conda.base.context import context
    except Exception as error:
        raise Failure(
            "IMPORT_FAILED", f"could not import conda's context ({type(error).__name__}: {error})"
        )
    try:
        pre_args = None
        if callable(getattr(conda_argparse, "generate_pre_parser", None)):
            pre_parser = call_flexibly(conda_argparse.generate_pre_parser, add_help=False)
            pre_args, _unknown = pre_parser.parse_known_args([])
        call_flexibly(context.__init__, argparse_args=pre_args)
        if getattr(context, "no_plugins", False):
            manager = plugin_manager_of(context)
            if manager is not None and hasattr(manager, "disable_external_plugins"):
                manager.disable_external_plugins()
            call_flexibly(context.__init__, argparse_args=pre_args)
        parser = call_flexibly(conda_argparse.generate_parser, add_help=True)
    except Failure:
        raise
    except BaseException as error:
        raise Failure(
            "PARSER_FAILED",
            f"conda {version} could not build its parser ({type(error).__name__}: {error})",
        )
    return parser, version, context


def subcommand_plugin_index(context, plugin_distributions):
    """Subcommand name -> (registered plugin name, distribution name or None).

    conda registers entry-point plugins itself, so pluggy's list_plugin_distinfo is usually
    empty; the distribution is then found by matching the registered name against the
    entry points (module path in recent conda, entry-point name in older ones).
    """
    manager = plugin_manager_of(context)
    index = {}
    if manager is None:
        return index
    distribution_of = {}
    for record in plugin_distributions:
        names = list(record.get("plugin_names", []))
        for entry_point in record["entry_points"]:
            names += [entry_point["name"], entry_point["value"].split(":", 1)[0].strip()]
        for name in names:
            distribution_of.setdefault(name, record["project_name"])
    try:
        for plugin, dist in manager.list_plugin_distinfo():
            name = manager.get_name(plugin)
            metadata = getattr(dist, "metadata", None)
            project = getattr(dist, "project_name", None) or (metadata["Name"] if metadata else None)
            if name and project:
                distribution_of[name] = project
    except Exception:
        pass
    try:
        impls = manager.hook.conda_subcommands.get_hookimpls()
    except Exception:
        return index
    for impl in impls:
        try:
            for subcommand in impl.function() or ():
                index.setdefault(
                    subcommand.name, (impl.plugin_name, distribution_of.get(impl.plugin_name))
                )
        except Exception:
            continue
    return index


def external_plugins(load):
    """Distributions with entry points in group `conda`, and the hooks their modules define.

    With external plugins disabled (`CONDA_NO_PLUGINS`, `no_plugins: true`) conda does not
    import them, so neither does this: they are listed as blocked, without hooks.
    """
    from importlib.metadata import distributions

    found = []
    seen = set()
    for dist in distributions():
        # Entry points first: parsing a distribution's metadata costs far more, and only the
        # few with conda plugins need it (read once: each access parses it again).
        try:
            entry_points = [ep for ep in dist.entry_points if ep.group == "conda"]
            metadata = dist.metadata if entry_points else None
            name = metadata["Name"] if metadata else None
        except Exception:
            continue
        if not name or name.lower() in seen:
            continue
        seen.add(name.lower())
        hooks = set()
        plugin_names = []
        errors = []
        for entry_point in entry_points if load else ():
            module_name = entry_point.value.split(":", 1)[0].strip()
            try:
                target = entry_point.load()
            except BaseException as error:
                errors.append(f"{entry_point.name}: {type(error).__name__}: {error}")
                continue
            plugin_names.append(getattr(target, "__name__", module_name))
            for attr in dir(target):
                if attr.startswith("conda_") and hasattr(getattr(target, attr, None), "conda_impl"):
                    hooks.add(attr[len("conda_"):])
        record = {
            "project_name": name,
            "version": metadata["Version"],
            "plugin_names": plugin_names,
            "entry_points": [
                {"name": ep.name, "value": ep.value, "group": ep.group} for ep in entry_points
            ],
            "hooks": sorted(hooks),
            "blocked": not load,
        }
        if errors:
            record["import_error"] = "; ".join(errors)
        found.append(record)
    found.sort(key=lambda record: record["project_name"].lower())
    return found


def completion_facts():
    """Where conda-completion keeps its manifest, and which version of it is installed."""
    try:
        import platformdirs

        cache_dir = platformdirs.user_cache_dir("conda")
    except Exception:
        cache_dir = None
    try:
        from importlib.metadata import version

        distribution_version = version("conda-completion")
    except Exception:
        distribution_version = None
    return {"cache_dir": cache_dir, "distribution_version": distribution_version}


def installation_facts(context):
    """Where conda keeps base and named environments, for the server's disaster guards."""
    root_prefix = getattr(context, "root_prefix", None) or sys.prefix
    try:
        envs_dirs = [str(d) for d in context.envs_dirs]
    except Exception:
        envs_dirs = [os.path.join(root_prefix, "envs")]
    return {"root_prefix": str(root_prefix), "envs_dirs": envs_dirs}


def site_dirs():
    dirs = []
    for entry in sys.path:
        path = os.path.abspath(entry or os.curdir)
        if os.path.isdir(path) and path not in dirs:
            dirs.append(path)
    return dirs


def pre_parser_facts():
    """The options conda pre-parses from anywhere in argv before a `--` (None: no pre-parser)."""
    from conda.cli import conda_argparse

    if not callable(getattr(conda_argparse, "generate_pre_parser", None)):
        return None
    pre_parser = call_flexibly(conda_argparse.generate_pre_parser, add_help=False)
    return {
        "option_strings": [o for action in pre_parser._actions for o in action.option_strings],
        "allow_abbrev": bool(getattr(pre_parser, "allow_abbrev", True)),
        "prefix_chars": pre_parser.prefix_chars,
    }


def introspect(emit):
    """Describes conda to `emit` a line at a time (see the module's docstring)."""
    import argparse
    import platform

    parser, version, context = build_parser()
    emit(
        {
            "ok": True,
            "conda_version": version,
            "python_version": platform.python_version(),
            "python_executable": sys.executable,
            "site_dirs": site_dirs(),
            **installation_facts(context),
            "pre_parser": pre_parser_facts(),
        }
    )

    # The plugins' facts take Python some milliseconds to find: only the commands plugins
    # register need them, and the server reads conda's own commands meanwhile.
    def find_plugins():
        plugin_distributions = external_plugins(load=not getattr(context, "no_plugins", False))
        emit({"external_plugins": plugin_distributions, "completion": completion_facts()})
        return subcommand_plugin_index(context, plugin_distributions)

    dumper = TreeDumper(argparse, find_null_sentinels(), find_plugins)

    def send_command(command):
        emit({"actions": dumper.new_actions(), "command": command})

    try:
        tree = dumper.describe_parser(parser, [], [], None, send_command)
    except BaseException as error:
        raise Failure("PARSER_FAILED", f"could not describe conda's parser ({type(error).__name__}: {error})")
    dumper.plugins()
    emit({"actions": dumper.new_actions(), "tree": tree})


def main():
    # Keep fd 1 for the document alone: anything conda prints while building goes to stderr.
    sys.stdout.flush()
    document_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(line):
        text = json.dumps(line, default=safe_repr, ensure_ascii=True) + "\n"
        write_all(document_fd, text.encode("ascii"))

    # The site folders first: the server reads what they hold while conda's parser is built (the
    # facts' own list, made later, decides).
    emit({"site_dirs": site_dirs()})
    try:
        introspect(emit)
    except Failure as failure:
        emit({"ok": False, "error": {"code": failure.code, "message": failure.message}})
    except BaseException as error:
        emit(
            {
                "ok": False,
                "error": {
                    "code": "PARSER_FAILED",
                    "message": f"introspection failed ({type(error).__name__}: {error})",
                },
            }
        )
    os.close(document_fd)


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def exit_without_teardown():
    """Ends the process once its answer is out, exit handlers included: the interpreter's own
    teardown, freeing every module conda imported, takes tens of milliseconds nobody waits for.
    The fact-finder ends the same way; each script is sent to Python on its own."""
    import atexit

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
    exit_without_teardown()
