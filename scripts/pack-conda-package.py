"""Pack a staged conda package folder into a .conda file with conda's own package tooling.

    python pack-conda-package.py STAGE OUT_FILE ZSTD_LEVEL

STAGE holds the package's files and its info/ folder (index.json, paths.json, files, ...);
every file in it goes into OUT_FILE, info/ into the info component. Run by
scripts/build-conda-package.ts with a Python that has conda-package-handling (any conda base
environment's Python does: conda depends on it).
"""

import os
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    stage, out_file, level = argv[1], os.path.abspath(argv[2]), int(argv[3])
    try:
        import zstandard
        from conda_package_handling import api
    except ImportError as error:
        print(f"this Python has no conda-package-handling ({error})", file=sys.stderr)
        return 3
    files = []
    for folder, _dirs, names in os.walk(stage):
        for name in names:
            files.append(os.path.relpath(os.path.join(folder, name), stage).replace(os.sep, "/"))
    files.sort()
    api.create(
        stage,
        files,
        out_file,
        compressor=lambda: zstandard.ZstdCompressor(level=level, threads=-1),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
