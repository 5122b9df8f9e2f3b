"""The ``toolcheck`` command installed with the Python package: the same command line as
the Rust binary, run in-process (same output, same exit codes)."""

from __future__ import annotations

import signal
import sys
from typing import List, Optional

from . import _toolcheck


def main(argv: Optional[List[str]] = None) -> None:
    args = list(sys.argv if argv is None else argv)
    if not args:
        args = ["toolcheck"]
    args[0] = "toolcheck"
    # Behave like the binary: Ctrl-C ends the run at once, a closed pipe ends output
    # quietly (the Rust side handles EPIPE).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    run_cli = getattr(_toolcheck, "run_cli", None)
    if run_cli is None:
        # An extension built without its `cli` feature (the API alone, no `clap`).
        sys.stderr.write(
            "toolcheck: this build of the Python package has no command line "
            "(its extension was built without the `cli` feature); "
            "install the release wheel, or the `toolcheck` binary\n"
        )
        sys.exit(2)
    code = run_cli(args)
    sys.exit(code)


if __name__ == "__main__":
    main()
