"""`errscan` and `python -m errscan`: Ctrl-C is one line even while errscan is still loading."""

import sys


def main() -> None:
    try:
        from errscan.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("errscan: interrupted\n")
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
