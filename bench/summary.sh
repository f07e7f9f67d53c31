#!/usr/bin/env bash
# Every speed and memory goal in one table: runs bench/perft.sh, bench/league.sh,
# bench/referee.sh and bench/standings.sh one after the other, takes the figure each prints on its
# `summary:` lines (what the people's tables show, machine-readable), and prints per goal the
# measured value, the goal, whether it is met, and what the value is a ratio against. Each
# script measures its figures against its baseline in the same run (the C anchors, the same
# program at another concurrency or without --record); their own output is kept in the
# directory printed at the end.
# Usage: bash bench/summary.sh           (every script at its full size: some ten minutes idle)
#        bash bench/summary.sh --quick   (every script's --quick mode: sizes far too small for
#                                         the goals to mean anything; the test suite runs it so
#                                         that the table cannot break unnoticed)
# Environment: BIN, the multiversi binary to measure (default: `cargo build --release`'s), given
#              to every script.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
quick=()
if [ "${1:-}" = --quick ]; then quick=(--quick); fi
mkdir -p target
out=$(mktemp -d "$PWD/target/bench-summary.XXXXXX")
BIN=$(multiversi_bin)
export BIN
model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for script in perft league referee standings; do
  echo "running bench/$script.sh ${quick[*]:-}" >&2
  bash "bench/$script.sh" "${quick[@]}" >"$out/$script.txt" 2>&1 ||
    { echo "bench/$script.sh failed:"; cat "$out/$script.txt"; exit 1; }
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$out"/*.txt | sed -n 's/^summary: //p' >"$out/figures"

# Goal rows: figure name, comparison (min: at least; max: at most), goal, unit, what it is.
rows() {
  cat <<'ROWS'
perft_8x8|min|2.5|x|perft 8x8, 4 players: leaves per CPU second against the C Othello anchor
perft_10x10|min|1.0|x|perft 10x10, 4 players: against the same anchor
perft_octagon|min|1.0|x|perft octagon, 4 players: against the same anchor
c2_over_c1_league|min|1.9|x|league with records, instant bots: games/s at concurrency 2 against 1
c2_over_c1_match_--record|min|1.9|x|match --record, instant bots: games/s at concurrency 2 against 1
c2_over_c1_league_--pin-cpus|min|1.9|x|the same league with --pin-cpus (each game on one CPU)
c2_over_c1_match_--record_--pin-cpus|min|1.9|x|match --record --pin-cpus: concurrency 2 against 1
record_cost_c1|max|1.05|x|match --record: time per game against without --record, concurrency 1
record_cost_c2|max|1.05|x|match --record: time per game against without --record, concurrency 2
record_cost_pinned_c1|max|1.05|x|the same with --pin-cpus, concurrency 1
record_cost_pinned_c2|max|1.05|x|the same with --pin-cpus, concurrency 2
league_rss_mb|max|8|MB|peak RSS of the referee over a league of 8 instant bots (10,080 games in full)
per_move_ratio|max|1.3|x|referee's cost per move against a pipe round trip (C anchor), both on one CPU, median
standings_seconds|max|3|s|multiversi standings of 95,040 games (in full): wall-clock seconds
standings_rss_mb|max|16|MB|multiversi standings of 95,040 games (in full): peak RSS
ROWS
}
echo "| goal | measured | goal | met |"
echo "|---|---:|---:|---|"
missing=0
while IFS='|' read -r name how goal unit what; do
  value=$(awk -v n="$name" '$1 == n { print $2; exit }' "$out/figures")
  # What was measured, when a line says: games=N.
  games=$(awk -v n="$name" '$1 == n { for (i = 3; i <= NF; i++) if ($i ~ /^games=/) print substr($i, 7); exit }' "$out/figures")
  if [ -z "$value" ]; then
    echo "| $what | (not printed) | $goal $unit | no |"
    missing=1
    continue
  fi
  met=$(awk -v v="$value" -v g="$goal" -v h="$how" 'BEGIN { ok = (h == "min") ? v >= g : v <= g; print ok ? "yes" : "no" }')
  sign=$([ "$how" = min ] && echo "≥" || echo "≤")
  echo "| $what | $value $unit${games:+ ($games games)} | $sign $goal $unit | $met |"
done < <(rows)
# Not goals: what the per-move goal is measured against, split in two.
floor=$(awk '$1 == "per_move_floor_ratio" { print $2; exit }' "$out/figures")
over=$(awk '$1 == "per_move_over_floor" { print $2; exit }' "$out/figures")
echo
echo "per move, for reference: the floor of the referee's shape (a C parent asking four children" \
  "in turn, each reply waited for with ppoll against a deadline; bench/anchors/referee_floor.c)" \
  "takes ${floor:-?}x the pipe round trip; the referee takes ${over:-?}x that floor (medians)"
echo
echo "machine: ${model:-unknown CPU}, $(nproc) cores; load average at the start: $load_start;" \
  "at the end: $load_end${quick:+ (quick mode: sizes too small for the goals)}"
echo "each script's own output: $out"
exit "$missing"
