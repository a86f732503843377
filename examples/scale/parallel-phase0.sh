#!/bin/sh
# examples/scale/parallel-phase0.sh — rtk phase0 in 4 shards on one machine with GNU parallel, then merged:
# phase0.json is what `rtk phase0 --json CONFIG` prints in one process. Usage: parallel-phase0.sh [CONFIG]
set -eu
CONFIG=${1:-phase0.yaml}
parallel rtk phase0 --shard {}/4 --json "$CONFIG" '>' piece-{}.json ::: 0 1 2 3 && rtk merge --json piece-*.json > phase0.json
