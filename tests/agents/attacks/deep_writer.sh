#!/bin/sh
# An agent that hides its files below a deep directory tree (the quota's
# measurement once stopped at 64 levels and counted nothing deeper): 180
# MiB under a 64 MiB quota, 70 levels down.  It must be stopped with a
# clear error, and the store must keep nothing of it.
d=.
i=0
while [ $i -lt 70 ]; do
	d=$d/d
	i=$((i + 1))
done
mkdir -p $d
for k in 1 2 3 4 5 6; do
	dd if=/dev/zero of=$d/f$k.bin bs=1M count=30 2>/dev/null
done
exit 0
