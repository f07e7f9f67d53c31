#!/usr/bin/env bash
# Perft speed of multiversi against the classic 2-player Othello anchor, measured in one run so
# that the ratios hold even on a busy, shared machine.
#
# Rates are leaves per CPU second (user + system time of the process, as bash's `time` reports
# it): on a machine shared with other work, wall-clock time mostly measures the other work, while
# CPU time stays close to what an idle machine would show. Each program's own wall-clock rate is
# printed as well. multiversi's perft prints every depth from 1 to DEPTH, so its leaves are the
# sum over all depths, against the CPU time of the whole run.
#
# Usage: bench/perft.sh            (run it from the repository, or set ANCHOR)
# Environment:
#   ANCHOR       path of othello_perft.c        (default: ../shared/anchors/othello_perft.c)
#   ANCHOR_DEPTH depth of the anchor's perft     (default: 11)
#   DEPTH_8X8, DEPTH_10X10, DEPTH_OCTAGON        multiversi depths (default: 11, 10, 10: each
#                takes more than a second)
#   BASELINE     another multiversi binary (say, a build of an older commit) to measure alongside,
#                for before/after comparisons in one run (default: none)
#   REPEAT       runs of each program, interleaved; the one with the least CPU time counts
#                (default: 1)
set -euo pipefail
cd "$(dirname "$0")/.."

anchor_src=${ANCHOR:-../shared/anchors/othello_perft.c}
anchor_depth=${ANCHOR_DEPTH:-11}
repeat=${REPEAT:-1}
boards=(8x8 10x10 octagon)
depths=("${DEPTH_8X8:-11}" "${DEPTH_10X10:-10}" "${DEPTH_OCTAGON:-10}")

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
programs=(multiversi)
if [ -n "${BASELINE:-}" ]; then
  cp "$BASELINE" "$work/baseline"
  programs+=(baseline)
fi

# Runs a command; leaves its stdout in $work/out, its stderr in $work/err, and sets `cpu` to its
# user + system seconds.
timed() {
  local TIMEFORMAT='%3U %3S'
  { time "$@" >"$work/out" 2>"$work/err"; } 2>"$work/time"
  cpu=$(awk '{ print $1 + $2 }' "$work/time")
}

# best[name] = "leaves cpu-seconds wall-rate" of the run with the least CPU time.
declare -A best
keep_best() { # name leaves cpu wall-rate
  local old=${best[$1]:-}
  if [ -z "$old" ] || awk -v a="$3" -v b="$(cut -d' ' -f2 <<<"$old")" 'BEGIN { exit !(a < b) }'; then
    best[$1]="$2 $3 $4"
  fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
for ((r = 0; r < repeat; r++)); do
  # "othello perft(11) = 212258572  3.907 s  54.3 M leaves/s"
  timed "$work/anchor" "$anchor_depth"
  keep_best anchor "$(awk '{ print $4 }' "$work/out")" "$cpu" "$(awk '{ print $7 }' "$work/out")"
  for i in "${!boards[@]}"; do
    for p in "${programs[@]}"; do
      bin=$mv_bin
      [ "$p" = baseline ] && bin=$work/baseline
      # stdout: "<depth> <leaves>" per depth; stderr ends with a rate like "45.3 M leaves/s".
      timed "$bin" perft --players 4 --board "${boards[$i]}" "${depths[$i]}"
      keep_best "$p ${boards[$i]}" "$(awk '{ n += $2 } END { print n }' "$work/out")" "$cpu" \
        "$(grep -o '[0-9.]* M leaves/s' "$work/err" | cut -d' ' -f1)"
    done
  done
done

field() { cut -d' ' -f"$2" <<<"${best[$1]}"; }
rate() { awk -v n="$(field "$1" 1)" -v s="$(field "$1" 2)" 'BEGIN { printf "%.1f", n / s / 1e6 }'; }
anchor_rate=$(rate anchor)

echo "| perft | depth | leaves | CPU s | M leaves/CPU s | ratio to anchor | bar | goal | wall-clock M leaves/s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| anchor: 2-player Othello, C | $anchor_depth | $(field anchor 1) | $(field anchor 2) | $anchor_rate | 1.00 | | | $(field anchor 3) |"
for p in "${programs[@]}"; do
  for i in "${!boards[@]}"; do
    b=${boards[$i]}
    r=$(rate "$p $b")
    ratio=$(awk -v a="$r" -v b="$anchor_rate" 'BEGIN { printf "%.2f", a / b }')
    if [ "$b" = 8x8 ]; then bar=0.5 goal=1.0; else bar=0.25 goal=0.5; fi
    echo "| $p, 4 players, $b | 1-${depths[$i]} | $(field "$p $b" 1) | $(field "$p $b" 2) | $r | $ratio | $bar | $goal | $(field "$p $b" 3) |"
  done
done
model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
echo
echo "machine: ${model:-unknown CPU}, $(nproc) cores; load average before the run: $load_before"
