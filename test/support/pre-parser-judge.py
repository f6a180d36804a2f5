"""Which argv tokens conda's own global pre-parser takes: the judge of preParsedOption's tests.

Usage: python -B pre-parser-judge.py, with a JSON list of tokens on stdin. Prints a JSON list of
booleans: true where `generate_pre_parser().parse_known_args([token])` fails, consumes the token
or sets any value, as conda's main_subshell would run it on an argv holding that token.
"""

import contextlib
import io
import json
import os
import sys


def main():
    # The script's own folder must not shadow anything the target imports.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    sys.argv = ["conda"]
    tokens = json.load(sys.stdin)
    from conda.cli.conda_argparse import generate_pre_parser

    def parse(argv):
        with contextlib.redirect_stderr(io.StringIO()):
            parser = generate_pre_parser(add_help=False)
            namespace, unknown = parser.parse_known_args(argv)
        return {key: repr(value) for key, value in vars(namespace).items()}, unknown

    untouched, _ = parse([])
    verdicts = []
    for token in tokens:
        try:
            values, unknown = parse([token])
            verdicts.append(values != untouched or unknown != [token])
        except SystemExit:
            verdicts.append(True)
    print(json.dumps(verdicts))


if __name__ == "__main__":
    main()
