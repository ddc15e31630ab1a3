"""`errscan` and `python -m errscan`: Ctrl-C is one line even while errscan is still loading;
`lookup` in a built site runs without click (errscan/lookup/command.py), the rest with it."""

import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["lookup"]:
        from errscan.lookup.command import run as lookup

        status = lookup(sys.argv[2:])
        if status is not None:
            # The answer is written: end without the interpreter's teardown, which frees the
            # matcher's objects one by one (a tenth of a lookup's time). Nothing else is pending.
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except OSError:  # the reader has gone (a closed pipe): nothing is left to say
                pass
            os._exit(status)
    try:
        from errscan.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("errscan: interrupted\n")
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
