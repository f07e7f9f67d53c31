#!/usr/bin/env bash
# The league's figures, from one run:
#   1. league throughput with instant bots (the hidden `bench-bot`) on 8x8, 4 players: games per
#      second at concurrency 1 and 2 and their ratio (goal: at least 1.8x on 2 cores), measured in
#      alternating rounds so that both see the same machine load;
#   2. the referee's peak RSS during a 10,000-game league (goal: at most 16 MB): records stream to
#      disk, and the runner keeps per-bot tallies, not games.
# Usage: bash bench/league.sh [GAMES]   (games per throughput round, default 1200)
#        bash bench/league.sh --quick   (one round of 120 games, a 360-game league for the
#                                        memory: seconds; the test suite runs it so that the
#                                        script cannot break unnoticed)
# Environment: BIN, the multiversi binary to measure (default: `cargo build --release`'s).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
games=1200 rounds_of=3 big_bots=8 big_rounds=6
if [ "${1:-}" = --quick ]; then
  games=120 rounds_of=1 big_bots=6 big_rounds=1
elif [ -n "${1:-}" ]; then
  games=$1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mv=$(multiversi_bin)
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# A league of N instant bots, 4 players, one board: C(N,4) deals x 24 seatings x ROUNDS games.
config() { # file, bots, rounds
  {
    echo "name = \"bench\""
    echo "seed = 1"
    echo "players = 4"
    echo "rounds = $3"
    for i in $(seq 1 "$2"); do
      printf '[[bot]]\nname = "b%d"\ncommand = "%s bench-bot"\n' "$i" "$mv"
    done
  } >"$1"
}

# 1. Throughput. 5 bots make 5 deals of 24 games a round.
rounds=$(( (games + 119) / 120 ))
config "$work/t.toml" 5 "$rounds"
total=$((rounds * 120))
for round in $(seq 1 "$rounds_of"); do
  for c in 1 2; do
    rm -rf "$work/out"
    s=$(date +%s.%N)
    "$mv" league "$work/t.toml" --out "$work/out" --concurrency "$c" >"$work/table" 2>"$work/log"
    e=$(date +%s.%N)
    n=$(wc -l <"$work/out/games.jsonl")
    [ "$n" -eq "$total" ] || { echo "expected $total games, got $n"; cat "$work/log"; exit 1; }
    no_faults "$work/table" 5
    awk -v s="$s" -v e="$e" -v n="$n" -v c="$c" -v r="$round" \
      'BEGIN { printf "round %d: concurrency %d: %d games in %.2f s, %.1f games/s\n", r, c, n, e - s, n / (e - s) }' |
      tee -a "$work/rates"
  done
done
best() { sort -g | tail -1; }
r1=$(awk '$4 == "1:" { print $(NF - 1) }' "$work/rates" | best)
r2=$(awk '$4 == "2:" { print $(NF - 1) }' "$work/rates" | best)
echo "league throughput, instant bots, 8x8, 4 players (best of $rounds_of rounds): concurrency 1 $r1 games/s," \
  "concurrency 2 $r2 games/s, ratio $(awk -v a="$r1" -v b="$r2" 'BEGIN { printf "%.2f", b / a }')x (goal 1.8x on 2 cores)"

# 2. Peak RSS of the referee over a 10,000-game league: 8 bots, C(8,4) = 70 deals x 24 = 1680
# games a round, 6 rounds = 10,080 games (with --quick, 6 bots and 1 round: 360 games). VmHWM is
# the referee's own high-water mark (its bots and watchdog are other processes), read while it
# runs: the last reading holds the whole peak.
config "$work/big.toml" "$big_bots" "$big_rounds"
rm -rf "$work/out"
"$mv" league "$work/big.toml" --out "$work/out" >/dev/null 2>"$work/log" &
pid=$!
kb=0
while kill -0 "$pid" 2>/dev/null; do
  v=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
  if [ -n "$v" ] && [ "$v" -gt "$kb" ]; then kb=$v; fi
  sleep 0.1
done
wait "$pid"
n=$(wc -l <"$work/out/games.jsonl")
echo "peak RSS of the referee over a $n-game league: $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB (goal 16 MB)"
