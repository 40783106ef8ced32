#!/bin/sh
# An agent that writes 100000 empty files (they hold no block, and the
# quota once counted blocks only): the store's file system runs out of
# inodes, not bytes.  Under a 64 MiB quota it must be stopped with a clear
# error, and the store must keep none of them.
mkdir -p many
python3 -c '
for i in range(100000):
    open("many/%d" % i, "w").close()
'
exit 0
