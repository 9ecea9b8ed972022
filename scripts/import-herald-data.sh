#!/usr/bin/env bash
# Rebuilds datasets/herald-edison/ from a checkout of the Herald project's analysis
# repository (https://github.com/theheraldproject/herald-analysis, Apache-2.0):
#
#   git clone https://github.com/theheraldproject/herald-analysis /tmp/herald-analysis
#   scripts/import-herald-data.sh /tmp/herald-analysis
#
# Nothing runs this at build or test time; the converted files are in the repository.
# What it changes (see datasets/herald-edison/README.md): times become whole seconds from
# the start of the recording, and only the first KEEP_SECONDS seconds at each distance are
# kept, so the data stays small.
set -euo pipefail

checkout=${1:?usage: scripts/import-herald-data.sh PATH-TO-herald-analysis-CHECKOUT}
keep_seconds=${KEEP_SECONDS:-120}
source_dir="$checkout/reference-data/rssi-raw-edison"
target_dir="$(cd "$(dirname "$0")/.." && pwd)/datasets/herald-edison"
[[ -d "$source_dir" ]] || { echo "import-herald-data: $source_dir does not exist; pass the root of a herald-analysis checkout" >&2; exit 2; }

# The recordings at 10–25 cm steps (January 2021). Later ones step by 1 cm with another
# segmentation and are not used.
recordings=(
    20210102-1128-B 20210104-1422-A 20210104-1422-B 20210105-1754-A 20210105-1754-B
    20210106-0815-A 20210106-0815-B 20210106-1501-A 20210106-1501-B 20210106-2251-A
    20210106-2251-B 20210107-1123-A 20210107-1123-B 20210107-2245-A 20210107-2245-B
    20210108-1423-A 20210108-1423-B 20210109-2342-A 20210109-2342-B 20210110-2247-A
    20210110-2247-B 20210111-1015-A 20210111-1015-B 20210111-2252-A 20210111-2252-B
    20210112-2303-A 20210112-2303-B 20210113-2034-A 20210113-2034-B
)

for name in "${recordings[@]}"; do
    input="$source_dir/$name.csv"
    [[ -f "$input" ]] || { echo "import-herald-data: $input is missing" >&2; exit 1; }
    # Source columns: time (YYYY-MM-DD HH:MM:SS, local), rssi (dBm, e.g. -63.0), distance (cm).
    awk -F, -v keep="$keep_seconds" '
        NR == 1 { print "seconds,rssi,distance_cm"; next }
        {
            split($1, parts, /[- :]/)
            t = mktime(parts[1] " " parts[2] " " parts[3] " " parts[4] " " parts[5] " " parts[6])
            if (t < 0) { print "unreadable time on line " NR ": " $1 > "/dev/stderr"; exit 1 }
            if (start == "") start = t
            distance = $3 + 0
            if (!(distance in first)) first[distance] = t
            if (t - first[distance] < keep) printf "%d,%d,%d\n", t - start, $2, distance
        }' "$input" > "$target_dir/$name.csv"
done
echo "import-herald-data: wrote ${#recordings[@]} recordings to $target_dir (first $keep_seconds s at each distance)"
