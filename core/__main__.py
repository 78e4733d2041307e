"""``python -m core`` and the installed ``radconcord`` command (pyproject.toml points it at :func:`run`):
the command line (core.cli.main), ended without the interpreter's teardown.

By the time ``main()`` returns, a command has committed and closed everything it wrote: the store holds
no connection between operations, a run's journal is fsynced answer by answer and closed, a job's
heartbeat thread is stopped and joined. What is left is CPython's teardown, which frees every object of
every imported module one by one: 1.2-1.5 s here once litellm is loaded (docs/SCALE.md). So the output
is flushed, logging is shut down, and the process leaves at once with main's exit code. litellm's own
exit handlers (they flush logging callbacks RadConcord never configures) are skipped with the rest.
An exception (argparse's exit, a traceback) leaves the ordinary way.

``serve`` is the dashboard (:mod:`core.cli.dashboard`): its options are Streamlit's, so it is handed on
before the command line parses them.
"""

import logging
import os
import sys


def run(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from core.cli.dashboard import launch

        sys.exit(launch(argv[1:]))
    from core.cli.main import main

    code = main(argv)
    if not isinstance(code, int) or isinstance(code, bool):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (output piped into head): nothing more to say
            pass
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    run()
