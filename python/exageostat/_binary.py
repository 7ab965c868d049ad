"""Finding the exageostat binary, checking its version and running it.

The binary is the engine: this module starts it (directly or under an MPI
launcher), forwards its progress lines, turns its one-line error message and
exit status into an exception, and stops it with one SIGINT when Python is
interrupted, so that the fit writes its best result and keeps its
checkpoint.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import threading

from ._errors import BinaryNotFound, ExageostatError, VersionMismatch

__all__ = ["find_binary", "binary_version", "check_version", "run"]

_VERSIONS = {}


def find_binary(binary=None):
    """Return the path of the exageostat binary.

    In order: ``binary`` when given, the ``EXAGEOSTAT_BIN`` environment
    variable, ``exageostat`` on ``PATH``. Raises :class:`BinaryNotFound`
    when none names an executable file.
    """
    tried = []
    for where, cand in (("binary=", binary), ("EXAGEOSTAT_BIN", os.environ.get("EXAGEOSTAT_BIN"))):
        if cand:
            path = shutil.which(cand) if os.sep not in cand else cand
            if path and os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)
            raise BinaryNotFound("%s names %r, which is not an executable file" % (where, cand))
    path = shutil.which("exageostat")
    if path:
        return os.path.abspath(path)
    tried.append("PATH")
    raise BinaryNotFound(
        "the exageostat binary was not found: put it on PATH, set EXAGEOSTAT_BIN, or pass binary="
    )


def binary_version(path):
    """The first word of ``exageostat --version`` ("devel" or "v0.1.0"), cached per file."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _VERSIONS:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
        except OSError as e:
            raise BinaryNotFound("%s: cannot run: %s" % (path, e)) from None
        m = re.match(r"\S+ version (\S+)", out.stdout.strip()) or re.match(r"exageostat (\S+)", out.stdout.strip())
        if out.returncode != 0 or not m:
            raise ExageostatError(
                "%s --version printed %r (exit status %d): not an exageostat binary"
                % (path, (out.stdout + out.stderr).strip()[:200], out.returncode),
                out.returncode,
            )
        _VERSIONS[key] = m.group(1)
    return _VERSIONS[key]


def check_version(path, package_version):
    """Refuse a binary whose release (major.minor) differs from the package's.

    A development build ("devel", built from a checkout) is accepted: it is
    the binary of the repository the package comes from. Raises
    :class:`VersionMismatch` otherwise.
    """
    v = binary_version(path)
    if v == "devel":
        return v
    want = package_version.split(".")[:2]
    got = v.lstrip("v").split("-")[0].split(".")[:2]
    if got != want:
        raise VersionMismatch(
            "%s is exageostat %s, this package is %s: install matching versions (or check_version=False)"
            % (path, v, package_version)
        )
    return v


def launcher_prefix(launcher, ranks, launcher_args=()):
    """The command words before the binary: none, mpirun -np R, or srun -n R."""
    if launcher is None:
        if ranks not in (None, 1):
            raise ValueError("ranks=%r needs launcher='mpirun' or 'srun'" % (ranks,))
        return []
    n = str(ranks or 1)
    if launcher == "mpirun":
        return ["mpirun", "-np", n] + list(launcher_args)
    if launcher == "srun":
        return ["srun", "-n", n] + list(launcher_args)
    if isinstance(launcher, (list, tuple)):
        return list(launcher) + list(launcher_args)
    raise ValueError("launcher=%r: use 'mpirun', 'srun', None or a list of words" % (launcher,))


class _Forward:
    """Where the binary's stderr lines go: sys.stderr, a callable, a tqdm bar or nowhere."""

    _EVAL = re.compile(r"\beval\s+(\d+)\b.*\bl=(\S+)")

    def __init__(self, progress):
        self.progress = progress
        self.bar = None
        if progress == "bar" or (progress is True and sys.stderr.isatty()):
            try:
                import tqdm  # optional

                self.bar = tqdm.tqdm(unit="eval", leave=False)
            except ImportError:
                self.bar = None

    def __call__(self, line):
        if self.bar is not None:
            m = self._EVAL.search(line)
            if m:
                self.bar.n = int(m.group(1))
                self.bar.set_postfix_str("l=" + m.group(2), refresh=True)
                return
            self.bar.write(line)
        elif callable(self.progress):
            self.progress(line)
        elif self.progress:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()


def run(argv, progress=True, env=None, interrupted=None):
    """Run one command line of the binary; return its standard output.

    Its standard error is forwarded line by line through ``progress``
    (True: to sys.stderr; a callable: called with each line; False:
    dropped). A nonzero exit status raises :class:`ExageostatError` with
    the binary's last "exageostat: ..." line as the message. On
    KeyboardInterrupt (Ctrl-C, or raised by a progress callable) the
    binary gets one SIGINT, is waited for, and ``interrupted(stdout,
    stderr_lines)`` decides what to raise (a second Ctrl-C stops it at once).
    """
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        # Its own session: a Ctrl-C at the terminal reaches Python only, which
        # then sends the binary exactly one SIGINT (two stop it at once).
        p = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            text=True, env=full_env, start_new_session=True,
        )
    except OSError as e:
        raise BinaryNotFound("%s: cannot start: %s" % (argv[0], e)) from None
    out = []
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
    reader.start()
    lines = []
    fwd = _Forward(progress)
    stopped = False
    try:
        try:
            for raw in p.stderr:
                line = raw.rstrip("\n")
                lines.append(line)
                fwd(line)
        except KeyboardInterrupt:
            stopped = True
            _stop(p)
            lines.extend(l.rstrip("\n") for l in p.stderr)
    finally:
        fwd.close()
        try:
            p.wait()
        except KeyboardInterrupt:
            p.send_signal(signal.SIGINT)
            p.wait()
        reader.join()
    stdout = out[0] if out else ""
    if stopped or p.returncode in (130, 143):
        if interrupted is not None:
            interrupted(stdout, lines, p.returncode)
        raise KeyboardInterrupt
    if p.returncode != 0:
        raise ExageostatError.from_run(argv, p.returncode, lines)
    return stdout


def _stop(p):
    """One SIGINT to the binary (or its launcher, which forwards it); wait for it."""
    try:
        p.send_signal(signal.SIGINT)
    except ProcessLookupError:
        return
    try:
        p.wait()
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once
        p.send_signal(signal.SIGINT)
        p.wait()
