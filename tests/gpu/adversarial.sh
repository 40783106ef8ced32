#!/bin/sh
# tests/gpu/adversarial.sh - adversarial GPU candidates through `arena
# eval` on the private HIP task tests/gpu/adversarial/task/vecpoly_hip:
# the honest ones must be accepted, every cheat rejected with its stated
# reason, or, where the controller's clock charges what it hides, left
# without gain.  Needs a GPU (ARENA_DEVICE, default cuda:0).  The list and
# the verdicts are tests/gpu/integrity.sh's adversarial step (one list for
# both); this is that step alone, with no deadline.  Writes
# $OUT/adversarial.txt; exit 0 when every verdict is as expected.
exec sh "$(dirname "$0")/integrity.sh" --deadline 3600 adversarial
