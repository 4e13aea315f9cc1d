# A private distccd for an end-to-end test (sourced after tests/e2e/lib.sh).
#
# distccd_start starts one on 127.0.0.1 at a free port, waits until it accepts
# connections, exports DISTCC_HOSTS (4 slots), DISTCC_FALLBACK=0 (a failed
# distribution fails instead of compiling locally) and DISTCC_DIR, and sets a
# trap that stops it however the test ends. distccd_compiles counts the
# compiles it ran (COMPILE_OK lines of its log), optionally for one source.
#
# Notes on the Debian distccd 3.4 this relies on:
# - as root it refuses to run without --user, so it runs as nobody (ignored when
#   not root); its log, pid file and TMPDIR live in a folder nobody can write,
#   made under /tmp so that every parent folder is reachable by nobody;
# - it runs only compilers named by their bare name (or /usr/bin/NAME) that
#   have a masquerade link in /usr/lib/distcc (g++, gcc, cc, c++ do); a compiler
#   given by another absolute path is refused ("cannot be an absolute path")
#   unless the server runs with --enable-tcp-insecure or DISTCC_CMDLIST.
#
# Without distcc, distccd or python3 the test is skipped (exit 77) at the point it
# sources this file.

need distcc distcc
need distccd distcc
need python3 python3

DISTCCD_DIR=
DISTCCD_PID=

distccd_stop() {
	if [ -n "$DISTCCD_PID" ]; then
		kill "$DISTCCD_PID" 2> /dev/null || true
		wait "$DISTCCD_PID" 2> /dev/null || true
		DISTCCD_PID=
	fi
	if [ -n "$DISTCCD_DIR" ]; then
		# Keep the log with the test's files for a failure's post-mortem.
		cp "$DISTCCD_DIR/distccd.log" "$T/distccd.log" 2> /dev/null || true
		rm -rf "$DISTCCD_DIR"
		DISTCCD_DIR=
	fi
}

# A port nothing listens on now: bind port 0, read what the kernel chose, close.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Poll until something accepts connections on 127.0.0.1:$1, failing if process
# $2 ends first or after 30 s.
wait_port() {
	python3 - "$1" "$2" <<'PY' || fail "distccd never listened on port $1"
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
end = time.monotonic() + 30
while time.monotonic() < end:
    try:
        socket.create_connection(("127.0.0.1", port), 0.5).close()
        sys.exit(0)
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)
    time.sleep(0.02)
sys.exit(1)
PY
}

distccd_start() {
	local port
	DISTCCD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kwarm-distccd.XXXXXX")
	trap distccd_stop EXIT
	# A signal (ctest's timeout) exits through the EXIT trap too.
	trap 'exit 143' TERM INT HUP
	chmod 755 "$DISTCCD_DIR"
	local user=()
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$DISTCCD_DIR"
		user=(--user nobody)
	fi
	port=$(free_port)
	TMPDIR=$DISTCCD_DIR distccd --daemon --no-detach "${user[@]}" \
		--listen 127.0.0.1 --allow 127.0.0.1 --port "$port" --jobs 4 \
		--log-file "$DISTCCD_DIR/distccd.log" --log-level info \
		--pid-file "$DISTCCD_DIR/distccd.pid" &
	DISTCCD_PID=$!
	wait_port "$port" "$DISTCCD_PID"
	export DISTCC_HOSTS=127.0.0.1:$port/4 DISTCC_FALLBACK=0 DISTCC_DIR=$T/distcc
	mkdir -p "$DISTCC_DIR"
	unset DISTCC_VERBOSE DISTCC_SAVE_TEMPS DISTCC_SKIP_LOCAL_RETRY
	local i=0
	while [ ! -s "$DISTCCD_DIR/distccd.pid" ]; do
		i=$((i + 1))
		[ "$i" -lt 3000 ] || fail "distccd wrote no pid file"
		sleep 0.01
	done
	[ "$(cat "$DISTCCD_DIR/distccd.pid")" = "$DISTCCD_PID" ] ||
		fail "distccd's pid file does not name the process started"
}

distccd_compiles() {
	[ -n "$DISTCCD_DIR" ] || { echo 0; return; }
	grep ' COMPILE_OK ' "$DISTCCD_DIR/distccd.log" | grep -c -- "${1:-}" || true
}
