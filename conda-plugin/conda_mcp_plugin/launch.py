"""`conda mcp`: find the conda-mcp binary and hand this process over to it.

Where the binary is looked for, first match wins:

1. ``$CONDA_MCP_BINARY``, when set: an explicit choice beats any installed copy (and a wrong
   one is an error, never a silent fallback);
2. beside conda, in the prefix of the Python running conda: ``bin/conda-mcp`` (POSIX), or
   ``Scripts\\conda-mcp.exe`` then ``Library\\bin\\conda-mcp.exe`` (Windows), where the
   conda-mcp conda package puts it;
3. ``conda-mcp`` on ``PATH``.

conda-mcp gets ``--conda <the running conda>`` appended (unless ``--conda`` was given), so a
leading command word such as ``catalog`` stays first, and ``CONDA_MCP_VIA_CONDA`` set to the
same executable, so it knows it was started as ``conda mcp``.

Everything but :func:`launch` is pure (environment, prefix and platform are parameters), so
the tests run it without conda.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Mapping, Sequence

BINARY_VARIABLE = "CONDA_MCP_BINARY"
VIA_CONDA_VARIABLE = "CONDA_MCP_VIA_CONDA"

NOT_FOUND = (
    "conda mcp: the conda-mcp binary was not found: set {variable} to its path, install it "
    "beside conda as {beside} (conda install conda-mcp), or put conda-mcp on PATH"
)


def beside_conda(prefix: str, on_win: bool) -> list[str]:
    """Where the conda-mcp binary sits beside conda in ``prefix``, in the order tried."""
    if on_win:
        return [
            os.path.join(prefix, "Scripts", "conda-mcp.exe"),
            os.path.join(prefix, "Library", "bin", "conda-mcp.exe"),
        ]
    return [os.path.join(prefix, "bin", "conda-mcp")]


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def on_path(path: str | None, on_win: bool, is_executable: Callable[[str], bool]) -> str | None:
    """The first conda-mcp binary in PATH's absolute folders (shutil.which is not used: on
    Windows it looks in the working directory first and takes any PATHEXT script)."""
    name = "conda-mcp.exe" if on_win else "conda-mcp"
    for folder in (path or "").split(os.pathsep):
        if folder and os.path.isabs(folder) and is_executable(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def find_binary(
    env: Mapping[str, str],
    prefix: str,
    on_win: bool,
    is_executable: Callable[[str], bool] = _is_executable,
) -> tuple[str | None, str | None]:
    """The binary to run and None, or None and the one-line error to print."""
    explicit = env.get(BINARY_VARIABLE)
    if explicit:
        if is_executable(explicit):
            return os.path.abspath(explicit), None
        return None, f"conda mcp: {BINARY_VARIABLE} is {explicit!r}, which is not an executable file"
    for candidate in beside_conda(prefix, on_win):
        if is_executable(candidate):
            return candidate, None
    found = on_path(env.get("PATH"), on_win, is_executable)
    if found:
        return found, None
    beside = " or ".join(beside_conda(prefix, on_win))
    return None, NOT_FOUND.format(variable=BINARY_VARIABLE, beside=beside)


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.normcase(path), os.path.normcase(folder)
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def running_conda(
    env: Mapping[str, str],
    prefix: str,
    on_win: bool,
    is_file: Callable[[str], bool] = os.path.isfile,
    realpath: Callable[[str], str] = os.path.realpath,
) -> str | None:
    """The executable of the conda that is running, as conda's own code names it.

    conda's ``context.conda_exe_vars_dict`` (what ``conda activate`` exports as ``CONDA_EXE``)
    is ``<conda_prefix>/bin/conda`` (``Scripts\\conda.exe`` on Windows), conda_prefix being
    ``sys.prefix``. ``CONDA_EXE`` is taken first when it lies inside that prefix (for example
    ``condabin/conda``), since that is the spelling the user's shell uses; a ``CONDA_EXE`` of
    another installation (its shell activated, this conda run by path) is ignored.
    """
    conda_exe = env.get("CONDA_EXE")
    if conda_exe and os.path.isabs(conda_exe) and is_file(conda_exe):
        if _inside(realpath(conda_exe), realpath(prefix)):
            return conda_exe
    own = os.path.join(prefix, "Scripts" if on_win else "bin", "conda.exe" if on_win else "conda")
    return own if is_file(own) else None


def gave_conda(args: Sequence[str]) -> bool:
    """Whether the user's own arguments already choose the conda to serve."""
    return any(arg == "--conda" or arg.startswith("--conda=") for arg in args)


def server_argv(binary: str, args: Sequence[str], conda_exe: str | None) -> list[str]:
    """conda-mcp's argv: the user's arguments as given, then ``--conda`` unless they chose one."""
    tail = [] if gave_conda(args) or conda_exe is None else ["--conda", conda_exe]
    return [binary, *args, *tail]


def plan(
    args: Sequence[str], env: Mapping[str, str], prefix: str, on_win: bool
) -> tuple[list[str], dict[str, str]] | str:
    """The argv and environment to start, or the one-line error to print."""
    binary, error = find_binary(env, prefix, on_win)
    if binary is None:
        return error or "conda mcp: the conda-mcp binary was not found"
    conda_exe = running_conda(env, prefix, on_win)
    if conda_exe is None and not gave_conda(args):
        return (
            f"conda mcp: cannot tell which conda executable is running (no conda in {prefix}); "
            "give conda-mcp's --conda PATH"
        )
    child_env = dict(env)
    if conda_exe is not None:
        child_env[VIA_CONDA_VARIABLE] = conda_exe
    return server_argv(binary, args, conda_exe), child_env


def launch(args: Sequence[str]) -> int:
    """Runs conda-mcp with the user's arguments; returns its exit code (Windows) or never."""
    on_win = sys.platform == "win32"
    # conda's context.conda_prefix is abspath(sys.prefix): the installation this conda runs from.
    planned = plan(list(args), os.environ, os.path.abspath(sys.prefix), on_win)
    if isinstance(planned, str):
        print(planned, file=sys.stderr)
        return 1
    argv, env = planned
    sys.stdout.flush()
    sys.stderr.flush()
    if on_win:
        return _run_windows(argv, env)
    import signal

    # Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec:
    # reset them, as subprocess does for its children, or every conda that conda-mcp starts
    # would inherit them.
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        # exec keeps the process and its stdin/stdout/stderr: the MCP stream stays untouched
        # and the client's kill reaches conda-mcp itself.
        os.execve(argv[0], argv, env)
    except OSError as error:
        print(f"conda mcp: cannot start {argv[0]}: {error.strerror}", file=sys.stderr)
        return 1
    return 1  # not reached: execve replaced this process


def _run_windows(argv: list[str], env: dict[str, str]) -> int:
    # Windows has no exec that keeps the process: run conda-mcp as a child with the same
    # console handles and hand back its exit code, as conda's own `_exec_win` does.
    import subprocess

    try:
        process = subprocess.Popen(argv, env=env)
    except OSError as error:
        print(f"conda mcp: cannot start {argv[0]}: {error.strerror}", file=sys.stderr)
        return 1
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            # Ctrl+C reaches the whole console group; conda-mcp shuts down on its own.
            continue
