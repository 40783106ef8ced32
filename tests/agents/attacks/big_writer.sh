#!/bin/sh
# An agent that writes 2 GiB into its workspace (issue 10, item 11): one
# file, then many.  It must be stopped with a clear error, and the store
# must keep nothing of it.
dd if=/dev/zero of=big.bin bs=1M count=2048 2>/dev/null
i=0
while [ $i -lt 100 ]; do
	dd if=/dev/zero of=part$i.bin bs=1M count=20 2>/dev/null
	i=$((i + 1))
done
exit 0
