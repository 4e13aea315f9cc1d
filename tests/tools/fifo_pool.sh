# shellcheck shell=bash
# fifo_pool.sh: helpers for tests that play make 4.4's fifo jobserver (sourced).

# fifo_pool_create PATH TOKENS: make a fifo holding TOKENS (a string, one byte
# per token) and keep it open read-write in fd $FIFO_POOL_FD, since a fifo's
# bytes are dropped once nobody has it open.
fifo_pool_create() {
	mkfifo "$1"
	exec {FIFO_POOL_FD}<>"$1"
	printf '%s' "$2" >&"$FIFO_POOL_FD"
}

# fifo_pool_take PATH: read (and so take) every token waiting in the fifo,
# without blocking, and print them sorted, one string.
fifo_pool_take() {
	{ dd if="$1" iflag=nonblock bs=4096 count=1 2>/dev/null || true; } | fold -w1 | LC_ALL=C sort | tr -d '\n'
}

# fifo_pool_put PATH TOKENS: give tokens back to the fifo.
fifo_pool_put() {
	printf '%s' "$2" >&"$FIFO_POOL_FD"
}
