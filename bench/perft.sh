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
# Usage: bash bench/perft.sh
#        bash bench/perft.sh --quick   (shallow depths, one run each: seconds, and ratios that mean
#                                       little; the test suite runs it so that the script cannot
#                                       break unnoticed)
# Environment:
#   ANCHOR       path of othello_perft.c        (default: bench/anchors/othello_perft.c)
#   ANCHOR_DEPTH depth of the anchor's perft     (default: 11)
#   DEPTH_8X8, DEPTH_10X10, DEPTH_OCTAGON        multiversi depths (default: 11, 10, 10: each
#                takes more than a second)
#   BIN          the multiversi binary to measure (default: `cargo build --release`'s)
#   BASELINE     another multiversi binary (say, a build of an older commit) to measure alongside,
#                for before/after comparisons in one run (default: none)
#   REPEAT       runs of each program, interleaved; the run with the median CPU time counts
#                (default: 1)
set -euo pipefail
cd "$(dirname "$0")/.."

anchor_src=${ANCHOR:-bench/anchors/othello_perft.c}
if [ "${1:-}" = --quick ]; then
  anchor_depth=7 depths=(6 5 5) repeat=1
else
  anchor_depth=${ANCHOR_DEPTH:-11}
  depths=("${DEPTH_8X8:-11}" "${DEPTH_10X10:-10}" "${DEPTH_OCTAGON:-10}")
  repeat=${REPEAT:-1}
fi
boards=(8x8 10x10 octagon)

if [ ! -f "$anchor_src" ]; then
  echo "bench/perft.sh: anchor source $anchor_src not found (set ANCHOR)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building the anchor (gcc -O3 -march=native)..." >&2
gcc -O3 -march=native -o "$work/anchor" "$anchor_src"
if [ -n "${BIN:-}" ]; then
  mv_bin=$BIN
else
  echo "building multiversi (cargo build --release)..." >&2
  cargo build --release --quiet
  mv_bin=target/release/multiversi
fi
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

# runs[name]: one line "cpu-seconds leaves wall-rate" per run; the run with the median CPU time
# counts (the lower middle one of an even number), so that one disturbed run moves nothing.
declare -A runs
keep() { # name leaves cpu wall-rate
  runs[$1]+="$3 $2 $4"$'\n'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
for ((r = 0; r < repeat; r++)); do
  # "othello perft(11) = 212258572  3.907 s  54.3 M leaves/s"
  timed "$work/anchor" "$anchor_depth"
  keep anchor "$(awk '{ print $4 }' "$work/out")" "$cpu" "$(awk '{ print $7 }' "$work/out")"
  for i in "${!boards[@]}"; do
    for p in "${programs[@]}"; do
      bin=$mv_bin
      [ "$p" = baseline ] && bin=$work/baseline
      # stdout: "<depth> <leaves>" per depth; stderr ends with a rate like "45.3 M leaves/s".
      timed "$bin" perft --players 4 --board "${boards[$i]}" "${depths[$i]}"
      keep "$p ${boards[$i]}" "$(awk '{ n += $2 } END { print n }' "$work/out")" "$cpu" \
        "$(grep -o '[0-9.]* M leaves/s' "$work/err" | cut -d' ' -f1)"
    done
  done
done

declare -A best # best[name] = "leaves cpu-seconds wall-rate" of the median run
for name in "${!runs[@]}"; do
  best[$name]=$(printf '%s' "${runs[$name]}" | sort -g | awk '{ r[NR] = $2 " " $1 " " $3 } END { print r[int((NR + 1) / 2)] }')
done
field() { cut -d' ' -f"$2" <<<"${best[$1]}"; }
# (A run too short for the millisecond clock counts as 1 ms.)
rate() { awk -v n="$(field "$1" 1)" -v s="$(field "$1" 2)" 'BEGIN { if (s < 0.001) s = 0.001; printf "%.1f", n / s / 1e6 }'; }
anchor_rate=$(rate anchor)
summary= # for bench/summary.sh: one line per figure, after the table

echo "| perft | depth | leaves | CPU s | M leaves/CPU s | ratio to anchor | bar | goal | wall-clock M leaves/s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| anchor: 2-player Othello, C | $anchor_depth | $(field anchor 1) | $(field anchor 2) | $anchor_rate | 1.00 | | | $(field anchor 3) |"
for p in "${programs[@]}"; do
  for i in "${!boards[@]}"; do
    b=${boards[$i]}
    r=$(rate "$p $b")
    ratio=$(awk -v a="$r" -v b="$anchor_rate" 'BEGIN { printf "%.2f", a / b }')
    if [ "$b" = 8x8 ]; then bar=0.5 goal=2.5; else bar=0.25 goal=1.0; fi
    echo "| $p, 4 players, $b | 1-${depths[$i]} | $(field "$p $b" 1) | $(field "$p $b" 2) | $r | $ratio | $bar | $goal | $(field "$p $b" 3) |"
    if [ "$p" = multiversi ]; then summary+="summary: perft_$b $ratio"$'\n'; fi
  done
done
model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
echo
echo "machine: ${model:-unknown CPU}, $(nproc) cores; load average before the run: $load_before;" \
  "after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); median of $repeat runs each"
printf '%s' "$summary"
