"""`errscan` and `python -m errscan`: Ctrl-C is one line even while errscan is still loading;
`lookup` in a built site runs without click (errscan/lookup/command.py), the rest with it."""

import sys


def main() -> None:
    if sys.argv[1:2] == ["lookup"]:
        from errscan.lookup.command import run as lookup

        status = lookup(sys.argv[2:])
        if status is not None:
            sys.exit(status)
    try:
        from errscan.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("errscan: interrupted\n")
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
