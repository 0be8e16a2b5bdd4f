"""The one error type the add-on reports as a plain message (no traceback): bad input, a job
that cannot run. Defined here, below the scene layer, so worker threads may raise it too."""


class NonogramError(Exception):
    """Bad input for a nonogram; the message is meant for the user."""
