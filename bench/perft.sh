#!/usr/bin/env bash
# Perft speed of multiversi against the classic 2-player Othello anchor, measured in one run so
# that the ratios hold even on a busy, shared machine (absolute numbers there are noise).
#
# Usage: bench/perft.sh            (from anywhere; run it from the repository for the defaults)
# Environment:
#   ANCHOR       path of othello_perft.c        (default: ../shared/anchors/othello_perft.c)
#   ANCHOR_DEPTH depth of the anchor's perft     (default: 11)
#   DEPTH_8X8, DEPTH_10X10, DEPTH_OCTAGON        multiversi depths (default: 10; each runs > 1 s)
#   REPEAT       runs of each program; the fastest counts, and they are interleaved so that a
#                burst of load elsewhere hits all of them alike (default: 1)
set -euo pipefail
cd "$(dirname "$0")/.."

anchor_src=${ANCHOR:-../shared/anchors/othello_perft.c}
anchor_depth=${ANCHOR_DEPTH:-11}
repeat=${REPEAT:-1}
boards=(8x8 10x10 octagon)
depths=("${DEPTH_8X8:-10}" "${DEPTH_10X10:-10}" "${DEPTH_OCTAGON:-10}")

if [ ! -f "$anchor_src" ]; then
  echo "bench/perft.sh: anchor source $anchor_src not found (set ANCHOR)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building the anchor (gcc -O3 -march=native) and multiversi (cargo build --release)..." >&2
gcc -O3 -march=native -o "$work/anchor" "$anchor_src"
cargo build --release --quiet
mv_bin=target/release/multiversi

# best[name] = "leaves seconds" of the fastest run so far.
declare -A best
keep_best() { # name leaves seconds
  local old=${best[$1]:-}
  if [ -z "$old" ] || awk -v a="$3" -v b="${old#* }" 'BEGIN { exit !(a < b) }'; then
    best[$1]="$2 $3"
  fi
}

for ((r = 0; r < repeat; r++)); do
  # "othello perft(11) = 212258572  3.907 s  54.3 M leaves/s"
  line=$("$work/anchor" "$anchor_depth")
  keep_best anchor "$(awk '{print $4}' <<<"$line")" "$(awk '{print $5}' <<<"$line")"
  for i in "${!boards[@]}"; do
    # stderr: "perft 10: 134969874 leaves in 2.979 s, 45.3 M leaves/s (depths 1-10 took ...)"
    line=$("$mv_bin" perft --players 4 --board "${boards[$i]}" "${depths[$i]}" 2>&1 >/dev/null)
    keep_best "${boards[$i]}" "$(awk '{print $3}' <<<"$line")" "$(awk '{print $6}' <<<"$line")"
  done
done

rate() { awk -v n="${1% *}" -v s="${1#* }" 'BEGIN { printf "%.1f", n / s / 1e6 }'; }
anchor_rate=$(rate "${best[anchor]}")

echo "| perft | depth | leaves | seconds | M leaves/s | ratio to anchor | bar | goal |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
echo "| anchor: 2-player Othello, C | $anchor_depth | ${best[anchor]% *} | ${best[anchor]#* } | $anchor_rate | 1.00 | | |"
for i in "${!boards[@]}"; do
  b=${boards[$i]}
  r=$(rate "${best[$b]}")
  ratio=$(awk -v a="$r" -v b="$anchor_rate" 'BEGIN { printf "%.2f", a / b }')
  if [ "$b" = 8x8 ]; then bar=0.5 goal=1.0; else bar=0.25 goal=0.5; fi
  echo "| multiversi 4 players $b | ${depths[$i]} | ${best[$b]% *} | ${best[$b]#* } | $r | $ratio | $bar | $goal |"
done
