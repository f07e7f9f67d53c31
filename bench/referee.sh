#!/usr/bin/env bash
# The referee's figures, all from one run:
#   1. the referee's cost per move with an instant bot, against the pipe round trip of the anchor
#      bench/anchors/pingpong.c, both on one CPU and where the kernel puts them (bar: at most 3x;
#      goal: 1.3x, on one CPU), and beside it the floor of the referee's shape
#      (bench/anchors/referee_floor.c: four children and a deadline, no other work);
#   2. games per second for four built-in random bots on 8x8, kept alive and restarted per game;
#   3. how long after a deadline a hung bot is flagged (p50 and p99 over 50 trials; bar 20 ms).
# Usage: bash bench/referee.sh [GAMES]   (GAMES per round of figure 1, default 600)
#        bash bench/referee.sh --quick   (every figure from a few games: seconds; the test suite
#                                         runs it so that the script cannot break unnoticed)
# Environment: BIN, the multiversi binary to measure (default: `cargo build --release`'s);
#              PINGPONG, the anchor's source (default: bench/anchors/pingpong.c);
#              FLOOR, the floor's source (default: bench/anchors/referee_floor.c).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
rounds=9 games=600 alive=1000 restarted=200 trials=50
if [ "${1:-}" = --quick ]; then
  rounds=2 games=10 alive=20 restarted=4 trials=3
elif [ -n "${1:-}" ]; then
  games=$1
fi
anchor=${PINGPONG:-bench/anchors/pingpong.c}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mv=$(multiversi_bin)
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. Per-move cost. The anchor exchanges 400-byte requests and 16-byte replies; an 8x8 turn
# message is about that size. The instant bot (hidden `bench-bot`) answers with the first legal
# move without parsing JSON, as the anchor's child answers without parsing. The referee's cost
# per move is the whole match's wall time over its moves: process start-up, start/ready/end
# messages and the end-of-match grace are all charged to the moves.
gcc -O2 -o "$work/pingpong" "$anchor"
# The floor of the referee's own shape (bench/anchors/referee_floor.c, ours, not a given anchor):
# the same messages with four children asked in turn, each reply waited for with ppoll against a
# deadline, as a referee that enforces time must. It says how much of the ratio no referee of
# this shape can avoid, and how much is the referee's own work.
gcc -O2 -o "$work/floor" "${FLOOR:-bench/anchors/referee_floor.c}"
bot="'$mv' bench-bot"
moves=$((games * 60))
# Where the processes run matters as much as what they do: when the kernel wakes the reader of a
# pipe on another CPU that was idle, the hand-off pays for waking that CPU, which on a virtual
# machine whose idle CPUs halt costs several round trips. The anchor's two processes land on one
# CPU or on two as the scheduler decides, so its time moves by as much from run to run. The goal
# is therefore judged with both on one CPU (`taskset`, the last CPU this script may use): there
# every hand-off is a plain switch for both, and the ratio compares the work per move. The same
# figures with the placement left to the kernel are printed beside them.
# The machine is shared and its load moves within seconds: the anchor and the referee run in
# alternation, in 9 short rounds (2 with --quick); reported are the median of the rounds' ratios
# and the ratio of the best (least disturbed) times of each.
cpu=$(awk '/^Cpus_allowed_list:/ { n = split($2, parts, /[,-]/); print parts[n] }' /proc/self/status)
one_round() { # round, placement ("one CPU" or "any CPU"), the command prefix...
  local r=$1 where=$2 pp pp_us start end
  shift 2
  pp=$("$@" "$work/pingpong" $((games * 50)) 400)
  pp_us=$(echo "$pp" | sed -E 's/.* = ([0-9.]+) us each.*/\1/')
  floor_us=$("$@" "$work/floor" $((games * 50)) 400 | sed -E 's/.* = ([0-9.]+) us each.*/\1/')
  start=$(date +%s.%N)
  "$@" "$mv" match "$bot" "$bot" "$bot" "$bot" --games "$games" --seed 1 --concurrency 1 >"$work/table1"
  end=$(date +%s.%N)
  no_faults "$work/table1" 4
  awk -v s="$start" -v e="$end" -v m="$moves" -v pp="$pp_us" -v f="$floor_us" -v r="$r" -v w="$where" 'BEGIN {
    us = (e - s) * 1e6 / m
    printf "round %d, %s: anchor %.2f us per round trip; floor %.2f us (%.2fx); referee %.2f us per move (%d moves); ratio %.2f\n", r, w, pp, f, f / pp, us, m, us / pp
  }'
}
for round in $(seq 1 "$rounds"); do
  one_round "$round" "one CPU" taskset -c "$cpu" | tee -a "$work/rounds"
  one_round "$round" "any CPU" env | tee -a "$work/rounds-any"
done
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { sort -g | head -1; }
figures() { # rounds file: "median best-referee best-anchor"
  local m r a
  m=$(awk '{ print $NF }' "$1" | median)
  a=$(sed -E 's/.*anchor ([0-9.]+) us.*/\1/' "$1" | best)
  r=$(sed -E 's/.*referee ([0-9.]+) us.*/\1/' "$1" | best)
  echo "$m $r $a"
}
read -r ratio referee_best anchor_best < <(figures "$work/rounds")
read -r ratio_any referee_any anchor_any < <(figures "$work/rounds-any")
floor_ratio=$(sed -E 's/.*floor [0-9.]+ us \(([0-9.]+)x\).*/\1/' "$work/rounds" | median)
over_floor=$(sed -E 's/.*floor ([0-9.]+) us.*referee ([0-9.]+) us.*/\2 \1/' "$work/rounds" |
  awk '{ printf "%.2f\n", $1 / $2 }' | median)
echo "per-move cost, 4 instant bots on 8x8, $games games per round, both on one CPU: median of the" \
  "rounds' ratios ${ratio}x; best times: referee $referee_best us per move, anchor $anchor_best us" \
  "per round trip, ratio $(awk -v r="$referee_best" -v a="$anchor_best" 'BEGIN { printf "%.2f", r / a }')x" \
  "(bar 3x, goal 1.3x)"
echo "the same with the placement left to the kernel: median ${ratio_any}x; best times: referee" \
  "$referee_any us per move, anchor $anchor_any us per round trip"
echo "the floor of the referee's shape (four children, ppoll against a deadline), one CPU: median" \
  "${floor_ratio}x the anchor; the referee against that floor: median ${over_floor}x"
echo "summary: per_move_ratio $ratio"
echo "summary: per_move_floor_ratio $floor_ratio"
echo "summary: per_move_over_floor $over_floor"

# 2. Games per second, four built-in random bots on 8x8.
rate() { # label, games, extra options
  local label=$1 n=$2; shift 2
  local s e
  s=$(date +%s.%N)
  "$mv" match builtin:random builtin:random builtin:random builtin:random --games "$n" --seed 2 --concurrency 1 "$@" >/dev/null
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" -v n="$n" -v l="$label" 'BEGIN { printf "%s: %d games in %.3f s = %.1f games/s\n", l, n, e - s, n / (e - s) }'
}
rate "random x4, 8x8, bots kept alive" "$alive"
rate "random x4, 8x8, bots restarted per game" "$restarted" --restart

# 3. Flag latency: a bot that says ready and then never answers, in one seat of each game
# (it is disqualified and restarted for the next game); 50 games (trials) with a 100 ms move limit. The
# fault event's `ms` runs from the turn message to the fault being noticed.
hung="sh -c 'read line; echo {\\\"type\\\":\\\"ready\\\"}; exec sleep 600'"
"$mv" match "$hung" builtin:random builtin:random builtin:random --games "$trials" --move-ms 100 \
  --concurrency 1 --seed 3 --events 2>/dev/null | grep '"type":"fault"' >"$work/faults" || true
python3 - "$work/faults" "$trials" <<'PY'
import json, sys
trials = int(sys.argv[2])
late = sorted(json.loads(l)["ms"] - 100 for l in open(sys.argv[1]))
assert len(late) == trials, f"{len(late)} faults, expected {trials}"
def pct(p):
    return late[min(len(late) - 1, int(round(p / 100 * (len(late) - 1))))]
print(f"hung bot flagged after its 100 ms deadline, {trials} trials: p50 {pct(50):.2f} ms, "
      f"p99 {pct(99):.2f} ms, max {late[-1]:.2f} ms (bar 20 ms)")
PY
