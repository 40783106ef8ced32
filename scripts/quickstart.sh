#!/bin/sh
# scripts/quickstart.sh - `make quickstart`: installs what is missing,
# builds, runs example_configs/quickstart_host.yaml (the autotune agent on
# ten c2c tasks, no GPU and no API key needed) and prints the summary.
set -e
cd "$(dirname "$0")/.."
scripts/deps.sh core
make -j"$(nproc)" all
store=${ARENA_STORE:-arena-data}
build/arena --store "$store" run example_configs/quickstart_host.yaml \
	--run-suffix quickstart
run=$(ls -1d "$store"/runs/run_*_quickstart* | tail -n 1)
echo
echo "== $run/summary.csv"
cat "$run/summary.csv"
