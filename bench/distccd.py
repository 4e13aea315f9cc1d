"""A private distccd on 127.0.0.1 for the benchmark's real distcc row.

Started as tests/tools/distccd.sh does (see its notes on Debian's distccd
3.4): as root it must run with --user nobody, so its log, pid file and TMPDIR
live in a folder of its own under the system temp folder (every parent
reachable by nobody), never under the benchmark's private scratch folder.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time


class StartError(Exception):
    """distccd could not be started; the message says why (for "n/a (...)")."""


def free_port():
    """A port nothing listens on now: bind port 0, read it, close."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


class Distccd:
    def __init__(self, distccd, slots=4):
        self.distccd, self.slots = distccd, slots
        self.dir = self.proc = self.port = None

    def start(self):
        """Start the daemon and wait until it accepts connections (at most
        30 s); raises StartError, with the daemon stopped, when it cannot."""
        self.dir = tempfile.mkdtemp(prefix="kwarm-bench-distccd.")
        os.chmod(self.dir, 0o755)
        user = []
        if os.getuid() == 0:
            try:
                shutil.chown(self.dir, "nobody")
            except (LookupError, OSError) as e:
                self.stop()
                raise StartError("cannot hand the daemon's folder to 'nobody': %s" % e)
            user = ["--user", "nobody"]
        self.port = free_port()
        env = dict(os.environ, TMPDIR=self.dir)
        try:
            self.proc = subprocess.Popen(
                [self.distccd, "--daemon", "--no-detach"] + user +
                ["--listen", "127.0.0.1", "--allow", "127.0.0.1", "--port", str(self.port),
                 "--jobs", str(self.slots), "--log-file", self.log_path(), "--log-level", "info",
                 "--pid-file", os.path.join(self.dir, "distccd.pid")],
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as e:
            self.stop()
            raise StartError("cannot run distccd: %s" % e)
        end = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                pass
            status = self.proc.poll()
            if status is not None or time.monotonic() > end:
                why = self.log_tail() or (self.proc.stderr.read().decode(errors="replace").strip()
                                          if status is not None else "")
                self.stop()
                raise StartError("distccd %s%s" % ("exited with status %d" % status if status is not None
                                                   else "never listened in 30 s",
                                                   ": " + why if why else ""))
            time.sleep(0.02)

    def hosts(self):
        """DISTCC_HOSTS naming this daemon and its slots."""
        return "127.0.0.1:%d/%d" % (self.port, self.slots)

    def log_path(self):
        return os.path.join(self.dir, "distccd.log")

    def log_tail(self):
        try:
            with open(self.log_path(), errors="replace") as f:
                lines = [x.strip() for x in f if x.strip()]
            return lines[-1] if lines else ""
        except OSError:
            return ""

    def compiles(self):
        """Compiles the daemon ran: COMPILE_OK lines of its log."""
        try:
            with open(self.log_path(), errors="replace") as f:
                return sum(1 for line in f if " COMPILE_OK " in line)
        except OSError:
            return 0

    def stop(self, keep_log=None):
        """Stop the daemon (if running) and remove its folder; keep_log: a
        path to copy its log to first. Safe to call more than once."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            if self.proc.stderr:
                self.proc.stderr.close()
            self.proc = None
        if self.dir:
            if keep_log:
                try:
                    shutil.copy(self.log_path(), keep_log)
                except OSError:
                    pass
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
