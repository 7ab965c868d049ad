"""The exceptions of the package: what the binary said, and its exit status."""

__all__ = ["ExageostatError", "BinaryNotFound", "VersionMismatch", "Interrupted"]


class ExageostatError(RuntimeError):
    """The binary failed: ``message`` is its one-line message, ``returncode`` its exit status.

    ``stderr`` holds every line it wrote to standard error, ``command`` the
    command line. Exit status 2 means bad input (a file, a flag, a bound),
    named in the message.
    """

    def __init__(self, message, returncode=None, command=None, stderr=()):
        self.message = message
        self.returncode = returncode
        self.command = command
        self.stderr = list(stderr)
        text = message if returncode is None else "%s (exit status %d)" % (message, returncode)
        super().__init__(text)

    @classmethod
    def from_run(cls, argv, code, lines):
        """The error of a run: its last line starting with "exageostat: ", else its last line."""
        msg = next((l for l in reversed(lines) if l.startswith("exageostat: ")), None)
        if msg is None:
            msg = next((l for l in reversed(lines) if l.strip()), "exited without a message")
        else:
            msg = msg[len("exageostat: "):]
        return cls(msg, code, list(argv), lines)


class BinaryNotFound(ExageostatError):
    """No exageostat binary on PATH, in EXAGEOSTAT_BIN or at binary=."""


class VersionMismatch(ExageostatError):
    """The binary's release differs from the package's."""


class Interrupted(ExageostatError, KeyboardInterrupt):
    """The run was interrupted (Ctrl-C): the binary stopped after the evaluation under way.

    ``fit`` is the best result so far (status "interrupted") when the binary
    wrote one, ``checkpoint`` the checkpoint file to continue from with
    ``resume=``.
    """

    def __init__(self, message, returncode=None, command=None, stderr=(), fit=None, checkpoint=None):
        super().__init__(message, returncode, command, stderr)
        self.fit = fit
        self.checkpoint = checkpoint
