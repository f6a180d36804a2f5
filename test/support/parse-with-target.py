"""Parse many argvs with the target conda's own parser, for round-trip tests.

Usage: python -B parse-with-target.py <path of src/discover/introspect.py>, with a JSON list of
argvs (lists of strings, without the leading `conda`) on stdin. Prints one JSON list: per argv
`{"ok": true, "namespace": {...}}` or `{"ok": false, "exit_code": N, "stderr": "...", "stdout": "..."}`.

The parser is built once by introspect.py's build_parser(), so exactly as the introspection saw
it. What conda's main_subshell does per call is mimicked where it changes the namespace: global
flags (-v, --json, --debug, --trace, --no-plugins) are pre-parsed from the whole argv with
conda's pre-parser, that namespace is passed into the main parse, and pre-parsed values win over
a subcommand's NULL defaults (conda's `override_args`). Not mimicked: `--no-plugins` does not
rebuild the parser without external plugins. Namespace values: NULL → {"$null": true}, enums →
their value, tuples → lists, a plugin subcommand object → {"$plugin": name}, anything else that is
not JSON → {"$repr": repr}.
"""

import contextlib
import importlib.util
import io
import json
import os
import sys
from enum import Enum

GLOBAL_FLAGS = ("json", "debug", "trace", "verbosity")


def load_introspect(path):
    spec = importlib.util.spec_from_file_location("conda_mcp_introspect", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain(value, is_null):
    if is_null(value):
        return {"$null": True}
    if isinstance(value, Enum):
        return plain(value.value, is_null)
    if isinstance(value, (list, tuple)):
        return [plain(item, is_null) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item, is_null) for key, item in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "name") and hasattr(value, "action") and hasattr(value, "summary"):
        return {"$plugin": value.name}
    return {"$repr": repr(value)}


def main():
    introspect_path = sys.argv[1]
    # The script's own folder must not shadow anything the target imports.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    argvs = json.load(sys.stdin)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    introspect = load_introspect(introspect_path)
    parser, _version, _context = introspect.build_parser()
    nulls = introspect.find_null_sentinels()

    def is_null(value):
        return any(value is null for null in nulls)

    from conda.cli import conda_argparse

    pre_parser = None
    if callable(getattr(conda_argparse, "generate_pre_parser", None)):
        pre_parser = introspect.call_flexibly(conda_argparse.generate_pre_parser, add_help=False)

    results = []
    for argv in argvs:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                pre_args = None
                overrides = {}
                if pre_parser is not None:
                    pre_args, _unknown = pre_parser.parse_known_args(list(argv))
                    overrides = {name: getattr(pre_args, name, None) for name in GLOBAL_FLAGS}
                namespace = parser.parse_args(list(argv), namespace=pre_args)
                for name, value in overrides.items():
                    if not is_null(value) and is_null(getattr(namespace, name, None)):
                        setattr(namespace, name, value)
            results.append(
                {
                    "ok": True,
                    "namespace": {
                        key: plain(value, is_null) for key, value in sorted(vars(namespace).items())
                    },
                }
            )
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            results.append(
                {"ok": False, "exit_code": code, "stderr": err.getvalue(), "stdout": out.getvalue()}
            )
    real_stdout.write(json.dumps(results))
    real_stdout.write("\n")


if __name__ == "__main__":
    main()
