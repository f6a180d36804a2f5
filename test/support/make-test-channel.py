"""Write a tiny conda channel for workflow tests: python make-test-channel.py CHANNEL_DIR [--rollback].

Packages (all noarch: generic, build 0, .tar.bz2), built with tarfile so any conda's Python
can run this without conda-build:
  tinyhello 1.0 and 1.1   bin/tinyhello prints "tinyhello <version>" and then each argument
                          on its own line; share/tinyhello/hello.txt
  tinyworld 1.0           depends on tinyhello >=1.0; share/tinyworld/world.txt
With --rollback, packages that make interrupted transactions observable:
  tinyslow 1.0            its post-link script writes $PREFIX/share/tinyslow/started, then
                          sleeps 60 s
  tinybulk 1.0 and 1.1    20,000 small files (share/tinybulk/dNN/fNNNNN.c), slow to extract,
                          link and unlink
Each subdir gets a repodata.json with the sizes and digests of the files written.
"""

import bz2
import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path

MTIME = 1767225600  # fixed, so the archives are the same on every run


def tar_bz2(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in sorted(members):
            data, mode = members[name]
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, MTIME
            tar.addfile(info, io.BytesIO(data))
    return bz2.compress(buffer.getvalue())


def package(name, version, payload, depends):
    index = {
        "build": "0",
        "build_number": 0,
        "depends": depends,
        "license": "BSD-3-Clause",
        "name": name,
        "noarch": "generic",
        "subdir": "noarch",
        "timestamp": MTIME * 1000,
        "version": version,
    }
    paths = [
        {
            "_path": path,
            "path_type": "hardlink",
            "sha256": hashlib.sha256(data).hexdigest(),
            "size_in_bytes": len(data),
        }
        for path, (data, _mode) in sorted(payload.items())
    ]
    info = {
        "info/index.json": (json.dumps(index).encode(), 0o644),
        "info/paths.json": (json.dumps({"paths": paths, "paths_version": 1}).encode(), 0o644),
        "info/files": ("".join(f"{p}\n" for p in sorted(payload)).encode(), 0o644),
    }
    data = tar_bz2({**info, **payload})
    record = {
        **index,
        "md5": hashlib.md5(data).hexdigest(),
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }
    return f"{name}-{version}-0.tar.bz2", data, record


def hello(version):
    script = f'#!/bin/sh\necho "tinyhello {version}"\nfor a in "$@"; do echo "$a"; done\n'
    return {
        "bin/tinyhello": (script.encode(), 0o755),
        "share/tinyhello/hello.txt": (f"hello {version}\n".encode(), 0o644),
    }


def slow():
    script = '#!/bin/sh\nmkdir -p "$PREFIX/share/tinyslow"\ntouch "$PREFIX/share/tinyslow/started"\nsleep 60\n'
    return {
        "bin/.tinyslow-post-link.sh": (script.encode(), 0o755),
        "share/tinyslow/slow.txt": (b"slow\n", 0o644),
    }


def bulk(version):
    return {
        f"share/tinybulk/d{n // 1000:02d}/f{n:05d}.c": (f"/* {version} {n} */\n".encode(), 0o644)
        for n in range(20_000)
    }


def rollback_packages():
    return (
        package("tinyslow", "1.0", slow(), []),
        package("tinybulk", "1.0", bulk("1.0"), []),
        package("tinybulk", "1.1", bulk("1.1"), []),
    )


def main():
    channel = Path(sys.argv[1])
    extra = rollback_packages() if "--rollback" in sys.argv[2:] else ()
    noarch = channel / "noarch"
    noarch.mkdir(parents=True, exist_ok=True)
    packages = {}
    for filename, data, record in (
        package("tinyhello", "1.0", hello("1.0"), []),
        package("tinyhello", "1.1", hello("1.1"), []),
        package(
            "tinyworld",
            "1.0",
            {"share/tinyworld/world.txt": (b"world\n", 0o644)},
            ["tinyhello >=1.0"],
        ),
        *extra,
    ):
        (noarch / filename).write_bytes(data)
        packages[filename] = record
    for subdir, records in (("noarch", packages), ("linux-64", {})):
        (channel / subdir).mkdir(parents=True, exist_ok=True)
        repodata = {"info": {"subdir": subdir}, "packages": records, "packages.conda": {}}
        (channel / subdir / "repodata.json").write_text(json.dumps(repodata, indent=1))


if __name__ == "__main__":
    main()
