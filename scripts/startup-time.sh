#!/bin/sh
# Median wall time (s) of 10 runs of a command: scripts/startup-time.sh node bin/fairway.js --help
for i in 1 2 3 4 5 6 7 8 9 10; do
  s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f s  (median of 10: %s)\n", (a[5] + a[6]) / 2000, "'"$*"'" }'
