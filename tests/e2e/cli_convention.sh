#!/bin/sh
# tests/e2e/cli_convention.sh - every subcommand follows one convention
# (cli/help.c): `arena CMD --help` (and -h) prints its usage, options and an
# example and exits 0 without touching anything (no ./arena-data, no
# $ARENA_STORE created); a usage error exits 2 with the usage on stderr and
# touches nothing either; the man pages in docs/man are what `arena help
# --man` renders from the same table; docs/cli.md names every command;
# `make install` installs the man pages and `make uninstall` removes what
# install put there.  The commands come from the binary (`arena help
# --commands`), so a new one is walked without editing this test.
. "$(dirname "$0")/lib.sh"

cmds=$("$ARENA" help --commands) || fail "arena help --commands failed"
[ -n "$cmds" ] || fail "no commands listed"
W="$T/cwd"
mkdir -p "$W"
cd "$W" || exit 1
export ARENA_STORE="$T/no-store-here"

untouched() {	# what
	[ -z "$(ls -A "$W")" ] || fail "$1 created $(ls -A "$W") in the current directory"
	[ ! -e "$ARENA_STORE" ] || fail "$1 created the store $ARENA_STORE"
}

n=0
for c in $cmds; do
	for h in --help -h; do
		"$ARENA" "$c" "$h" >"$T/out" 2>"$T/err"
		rc=$?
		[ $rc -eq 0 ] || fail "arena $c $h exits $rc (want 0): $(cat "$T/err")"
		[ ! -s "$T/err" ] || fail "arena $c $h wrote to stderr: $(cat "$T/err")"
		head -n 1 "$T/out" | grep -q "^usage: arena $c" ||
			fail "arena $c $h does not start with its usage: $(head -n 1 "$T/out")"
		grep -q '^Example:' "$T/out" || fail "arena $c $h shows no example"
		untouched "arena $c $h"
	done
	# `arena help CMD` is the same text.
	"$ARENA" help "$c" >"$T/out2" || fail "arena help $c failed"
	"$ARENA" "$c" --help >"$T/out" 2>/dev/null
	cmp -s "$T/out" "$T/out2" || fail "arena help $c differs from arena $c --help"
	# A usage error: exit 2, the usage and one sentence on stderr.
	"$ARENA" "$c" --no-such-option >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] || fail "arena $c --no-such-option exits $rc (want 2): $(cat "$T/err")"
	grep -q "^usage: arena $c" "$T/err" || fail "arena $c: a usage error does not print the usage: $(cat "$T/err")"
	grep -q '^arena: ' "$T/err" || fail "arena $c: a usage error does not say what is wrong"
	untouched "arena $c --no-such-option"
	n=$((n + 1))
done
note "$n commands answer --help and -h with exit 0, usage errors with exit 2, touching nothing"

# Commands that need an argument: without it, a usage error (2).
for c in run resume report cancel worker slurm compare mount eval export; do
	echo "$cmds" | grep -qx "$c" || fail "command $c is not listed"
	"$ARENA" "$c" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] || fail "arena $c without its argument exits $rc (want 2): $(cat "$T/err")"
	untouched "arena $c (no argument)"
done
# Malformed arguments are usage errors too.
"$ARENA" status not_a_run >/dev/null 2>&1; [ $? -eq 2 ] || fail "arena status not_a_run is not a usage error"
"$ARENA" run x.yaml --gpus 0,0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "arena run --gpus 0,0 is not a usage error"
"$ARENA" worker run_20261201_000000 --index -3 >/dev/null 2>&1; [ $? -eq 2 ] || fail "arena worker --index -3 is not a usage error"
"$ARENA" tasks c2c c2c/saxpy >/dev/null 2>&1; [ $? -eq 2 ] || fail "arena tasks with two selectors is not a usage error"
untouched "malformed arguments"
# The program itself.
"$ARENA" >/dev/null 2>&1; [ $? -eq 2 ] || fail "arena without a command does not exit 2"
"$ARENA" no-such-command >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown command does not exit 2"
"$ARENA" --help >"$T/out" || fail "arena --help fails"
for c in $cmds; do
	grep -q "^  $c " "$T/out" || fail "arena --help does not list $c"
done
untouched "arena --help"
note "missing and malformed arguments are usage errors (2)"

# The man pages in the tree are the ones the table renders.
"$ARENA" help --man >"$T/arena.1" || fail "arena help --man failed"
cmp -s "$T/arena.1" "$ROOT/docs/man/arena.1" ||
	fail "docs/man/arena.1 is not what 'arena help --man' renders: run 'make man'"
for c in $cmds; do
	"$ARENA" help --man "$c" >"$T/p.1" || fail "arena help --man $c failed"
	cmp -s "$T/p.1" "$ROOT/docs/man/arena-$c.1" ||
		fail "docs/man/arena-$c.1 is not what 'arena help --man $c' renders: run 'make man'"
done
for f in "$ROOT"/docs/man/arena-*.1; do
	c=$(basename "$f" .1); c=${c#arena-}
	echo "$cmds" | grep -qx "$c" || fail "docs/man/arena-$c.1 names no command (stale page)"
done
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$ROOT/docs/man/arena-mount.1" 2>&1 | grep -q 'ARENA-MOUNT(1)' ||
		fail "man cannot render docs/man/arena-mount.1"
fi
# docs/cli.md names every command.
for c in $cmds; do
	grep -q "arena $c" "$ROOT/docs/cli.md" || fail "docs/cli.md does not mention 'arena $c'"
done
note "docs/man matches the command table; docs/cli.md names every command"

# make install puts the man pages under PREFIX; make uninstall removes
# everything install put there.
P="$T/prefix"
( cd "$ROOT" && make -s install PREFIX="$P" B="$B" >"$T/install.log" 2>&1 ) ||
	fail "make install failed: $(tail -n 5 "$T/install.log")"
[ -x "$P/bin/arena" ] || fail "make install did not install bin/arena"
[ -f "$P/share/man/man1/arena.1" ] || fail "make install did not install arena.1"
[ -f "$P/share/man/man1/arena-mount.1" ] || fail "make install did not install arena-mount.1"
( cd "$ROOT" && make -s uninstall PREFIX="$P" B="$B" >"$T/uninstall.log" 2>&1 ) ||
	fail "make uninstall failed: $(tail -n 5 "$T/uninstall.log")"
left=$(find "$P" -type f)
[ -z "$left" ] || fail "make uninstall left files behind: $left"
note "make install installs the man pages; make uninstall removes every file it installed"
echo "PASS cli_convention"
