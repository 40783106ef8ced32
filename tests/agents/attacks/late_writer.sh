#!/bin/sh
# An agent that leaves a process behind (issue 10, item 7): a new session
# that breaks the kernel two seconds after the agent has exited, while the
# final evaluation would be reading the workspace.  Every process an agent
# started must be gone before the snapshot: the verdict must be ok.
setsid sh -c 'sleep 2; echo "#error written after the agent ended" >> kernel.c; sleep 60' \
	</dev/null >/dev/null 2>&1 &
(trap "" HUP TERM; exec sleep 120) </dev/null >/dev/null 2>&1 &
echo "left two processes behind" >> notes.txt
exit 0
