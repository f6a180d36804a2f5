"""Parse many argvs the way the target conda parses them, for round-trip (fidelity) tests.

Usage: python -B parse-with-target.py <path of src/discover/introspect.py>, with a JSON list of
argvs (lists of strings, without the leading `conda`) on stdin. Prints one JSON list: per argv
`{"ok": true, "namespace": {...}}` or `{"ok": false, "exit_code": N, "stderr": "...", "stdout": "..."}`.

Nothing of conda's parsing is imitated: each argv goes through conda's own
`conda.cli.main.main_subshell` (global pre-parse, context, `--no-plugins`, parser build, parse,
the pre-parsed overrides) in a forked child, and a post-parse hook captures the namespace and
stops the child before the command would run. Forking keeps every argv's context and plugin
state apart (`--no-plugins` disables plugins for the rest of a process); one child per core runs
at a time, and results come back in the argvs' order. An exception raised while parsing
(conda's MatchSpec check, say) is a refusal with exit code 1.

Namespace values: NULL -> {"$null": true}, enums -> their value, tuples -> lists, a plugin
subcommand object -> {"$plugin": name}, anything else that is not JSON -> {"$repr": repr}.
"""

import contextlib
import gc
import importlib.util
import io
import json
import os
import sys
import traceback
from enum import Enum


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


class Parsed(BaseException):
    """Raised by the post-parse hook: parsing is done, the command must not run."""

    def __init__(self, namespace):
        super().__init__("parsed")
        self.namespace = namespace


def parse_one(main_subshell, argv, is_null):
    out, err = io.StringIO(), io.StringIO()

    def capture(args, _parser):
        raise Parsed(args)

    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main_subshell(*argv, post_parse_hook=capture)
    except Parsed as parsed:
        namespace = vars(parsed.namespace)
        return {
            "ok": True,
            "namespace": {key: plain(value, is_null) for key, value in sorted(namespace.items())},
        }
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        return {"ok": False, "exit_code": code, "stderr": err.getvalue(), "stdout": out.getvalue()}
    except BaseException:
        err.write(traceback.format_exc())
        return {"ok": False, "exit_code": 1, "stderr": err.getvalue(), "stdout": out.getvalue()}
    return {"ok": False, "exit_code": 0, "stderr": "the command ran", "stdout": out.getvalue()}


def start_child(main_subshell, argv, is_null):
    """One parse in a forked child, so no state of it (context, plugins) reaches the next."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            data = json.dumps(parse_one(main_subshell, argv, is_null)).encode()
        except BaseException:
            data = json.dumps(
                {"ok": False, "exit_code": 1, "stderr": traceback.format_exc(), "stdout": ""}
            ).encode()
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        os._exit(0)
    os.close(write_end)
    return pid, read_end


def finish_child(pid, read_end):
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def parse_all(main_subshell, argvs, is_null):
    """Every argv's outcome in order, with up to one child per core at a time."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # A container may see more cores than its quota lets it use: at most eight at a time.
    width = max(1, min(cores or 1, 8))
    running, results = [], []
    for argv in argvs:
        # The oldest child is read first: a later one blocked on a full pipe waits its turn.
        if len(running) >= width:
            results.append(finish_child(*running.pop(0)))
        running.append(start_child(main_subshell, argv, is_null))
    results.extend(finish_child(*child) for child in running)
    return results


def main():
    introspect_path = sys.argv[1]
    # The script's own folder must not shadow anything the target imports.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    argvs = json.load(sys.stdin)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    introspect = load_introspect(introspect_path)
    # Import and build once in the parent, so every child starts warm.
    introspect.build_parser()
    nulls = introspect.find_null_sentinels()

    def is_null(value):
        return any(value is null for null in nulls)

    from conda.cli.main import main_subshell

    # What the parent built stays out of the children's collections: fewer pages to copy.
    gc.freeze()
    results = parse_all(main_subshell, argvs, is_null)
    real_stdout.write(json.dumps(results))
    real_stdout.write("\n")


if __name__ == "__main__":
    main()
