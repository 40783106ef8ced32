#!/bin/sh
# An agent that looks everywhere for what it must not see (issue 10, item
# 6): held-out cases, references and trusted copies, the task catalogue,
# any arena store (arena.db), and a controller whose command line names its
# store.  It writes what it found to found.txt in its workspace; the test
# plants a second store and a copy of the catalogue on disk beforehand.
: > found.txt
# The quick probes first: an agent stopped at its deadline (seeker_off's
# 20 s) while find walks a loaded machine's disk has found.txt filled
# with them already, and find's buffered output would be lost.
for c in /proc/[0-9]*/cmdline; do
	tr '\0' ' ' < "$c" 2>/dev/null | grep -e '--store' >> found.txt
done
for v in ARENA_STORE ARENA_TASKS_DIR; do
	eval "x=\${$v:-}"
	[ -n "$x" ] && [ -e "$x" ] && echo "$v=$x" >> found.txt
done
find / \( -path /proc -o -path /sys -o -path /dev \) -prune -o \
	\( -name held_out.yaml -o -name arena.db -o -name reference.c \
	   -o -name .arena-manifest -o -name 'planted-*' \) -print \
	2>/dev/null >> found.txt
echo "searched; $(wc -l < found.txt) found" >> notes.txt
exit 0
