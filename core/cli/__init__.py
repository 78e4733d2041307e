"""The command line: ``python -m core``."""
