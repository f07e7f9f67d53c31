#!/usr/bin/env bash
# `multiversi standings` at scale: wall-clock time and peak RSS for some 96,000 games (goal: at
# most 3 s and 16 MB), with the default 200 bootstrap replicates and no output files.
#
# The records are generated once per run: one round of a league of 12 instant bots (the hidden
# `bench-bot`, first legal move) on 8x8 with 4 players, C(12,4) = 495 deals x 24 seatings =
# 11,880 games, played by the binary under test; the file is then copied under 8 run names, as
# the records of 8 leagues would be (each line's `schedule.run` renamed, nothing else changed:
# the lines stay valid records, and no game is a duplicate of another), 95,040 games in all.
# Each program reads the same file in alternating rounds; the best round counts. With BASELINE,
# both programs' outputs (the terminal table, and standings.json, .csv, .html written with
# --out) are compared byte for byte: the standings must not change, only their cost.
# Usage: bash bench/standings.sh            (8 copies of the 11,880-game league)
#        bash bench/standings.sh --quick    (5 bots, 2 copies: 240 games; the test suite runs it)
# Environment: BIN, the multiversi binary to measure (default: `cargo build --release`'s);
#              BASELINE, another multiversi binary measured alongside in the same rounds;
#              ROUNDS, the alternating rounds (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
bots=12 copies=8 rounds_of=${ROUNDS:-3}
if [ "${1:-}" = --quick ]; then
  bots=5 copies=2 rounds_of=1
fi
mkdir -p target
work=$(mktemp -d "$PWD/target/bench-standings.XXXXXX")
trap 'rm -rf "$work"' EXIT

declare -A bin
bin[new]=$(multiversi_bin)
programs=(new)
baseline=$(baseline_copy "$work")
if [ -n "$baseline" ]; then
  bin[baseline]=$baseline
  programs+=(baseline)
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')," \
  "$(nproc) cores, load average $load_before"

# The records.
{
  echo "name = \"bench\""
  echo "seed = 1"
  echo "players = 4"
  echo "rounds = 1"
  for i in $(seq 1 "$bots"); do
    # The binary's path quoted inside the command: it may hold a space.
    printf '[[bot]]\nname = "b%d"\ncommand = "\047%s\047 bench-bot"\n' "$i" "${bin[new]}"
  done
} >"$work/league.toml"
s=$(date +%s.%N)
"${bin[new]}" league "$work/league.toml" --out "$work/league" --concurrency 2 >/dev/null 2>"$work/log" ||
  { cat "$work/log"; exit 1; }
for k in $(seq 1 "$copies"); do
  sed "s/\"run\":\"bench\"/\"run\":\"bench-$k\"/" "$work/league/games.jsonl"
done >"$work/games.jsonl"
games=$(wc -l <"$work/games.jsonl")
[ "$(grep -c '"run":"bench-1"' "$work/games.jsonl")" -eq "$((games / copies))" ] ||
  { echo "the records' run names were not renamed"; exit 1; }
echo "records: $games games ($copies copies of a $((games / copies))-game league of $bots bots)," \
  "$(du -m "$work/games.jsonl" | cut -f1) MB, generated in $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"

# Each round: every program reads the file; /usr/bin/time gives wall-clock seconds and the peak
# RSS (maximum resident set size, KB) of the one process.
: >"$work/figures"
for round in $(seq 1 "$rounds_of"); do
  for p in "${programs[@]}"; do
    /usr/bin/time -f "%e %M" -o "$work/time" "${bin[$p]}" standings "$work/games.jsonl" \
      >"$work/$p.txt" 2>"$work/$p.err" || { cat "$work/$p.err"; exit 1; }
    read -r seconds kb <"$work/time"
    echo "round $round: $p: $games games in $seconds s, peak RSS $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB"
    echo "$p $seconds $kb" >>"$work/figures"
  done
done
grep -q "^ *1 " "$work/new.txt" || { echo "no standings table:"; cat "$work/new.txt"; exit 1; }
best() { # program column: the smallest over the rounds
  awk -v p="$1" -v c="$2" '$1 == p && (b == "" || $c < b) { b = $c } END { print b }' "$work/figures"
}
echo
echo "| program | standings of $games games | seconds | goal | peak RSS, MB | goal |"
echo "|---|---|---:|---:|---:|---:|"
for p in "${programs[@]}"; do
  mb=$(awk -v k="$(best "$p" 3)" 'BEGIN { printf "%.1f", k / 1024 }')
  echo "| $p | 200 bootstrap replicates, no files | $(best "$p" 2) | 3 | $mb | 16 |"
done
if [ -n "${BASELINE:-}" ]; then
  same=yes
  cmp -s "$work/new.txt" "$work/baseline.txt" || same=no
  for p in "${programs[@]}"; do
    "${bin[$p]}" standings "$work/games.jsonl" --out "$work/$p-out" --no-viewer >/dev/null 2>&1
  done
  for f in standings.json standings.csv standings.html; do
    cmp -s "$work/new-out/$f" "$work/baseline-out/$f" || { same=no; echo "$f differs from the baseline's"; }
  done
  awk -v a="$(best new 2)" -v b="$(best baseline 2)" -v c="$(best new 3)" -v d="$(best baseline 3)" \
    'BEGIN { printf "new against baseline: %.2fx the time, %.2fx the peak RSS\n", a / b, c / d }'
  echo "same standings as the baseline (table, JSON, CSV, HTML): $same"
fi
echo "(best of $rounds_of rounds; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg))"
# For bench/summary.sh: one line per figure.
echo "summary: standings_seconds $(best new 2) games=$games"
echo "summary: standings_rss_mb $(awk -v k="$(best new 3)" 'BEGIN { printf "%.1f", k / 1024 }') games=$games"
