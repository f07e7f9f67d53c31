#!/usr/bin/env bash
# The SPRT's figures (README, "Is my new version better?"):
#   1. simulated tests (`examples/sprt.rs simulate`, pure functions, no processes): for the table
#      measured in real games and for one where openings decide more, the false-positive rate at
#      elo0, the power at elo1 and the games to a decision, of the paired test (a deal is one twin
#      pair) against an unpaired one (single games, random seats), and of deals played in all
#      seatings with the deal as the unit against their pairs counted as independent;
#   2. with REAL=1, the measurement the simulated table is sized by: a league of the instant
#      built-in bots (greedy, random, two of each; 3 and 4 players, 4-move random openings, every
#      deal in all seatings, 1,920 games, a few minutes) and the variance of a twin pair against
#      that of a single game, per pair of bots, from its records;
#   3. with ENGINES=N, the same for N twin pairs of the search engines (mcts against brs+, a third
#      seat from greedy, random and brs, 20 ms per move) played in-process, so that a loaded
#      machine weakens them instead of timing them out (about 1 s a pair).
# Usage:
#   bash bench/sprt.sh            # 1000 tests per row, elo0 0, elo1 10 (a few minutes)
#   bash bench/sprt.sh --quick    # 100 tests per row, elo1 40: seconds
#   REAL=1 ENGINES=200 bash bench/sprt.sh
#   THREADS=2 bash bench/sprt.sh  # the same figures, sooner
#   BIN=PATH SPRT=PATH bash bench/sprt.sh  # a given multiversi binary and build of
#                                 # examples/sprt.rs instead of `cargo build --release`'s (the test
#                                 # suite runs `--quick` so, so that the script cannot break
#                                 # unnoticed)
# Any other arguments go to `simulate` (--tests N, --elo0 E, --elo1 E, --alpha A, --beta B,
# --seed S, --model measured|decisive|both).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${SPRT:-}" ]; then
  sprt=$SPRT
else
  cargo build --release -q --example sprt
  sprt=$PWD/target/release/examples/sprt
fi
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$sprt" simulate --threads "${THREADS:-1}" "$@"

if [ -n "${REAL:-}" ]; then
  source bench/common.sh
  mv=$(multiversi_bin)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cat >"$work/league.toml" <<'EOF'
name = "sprt-twins"
seed = 11
players = [3, 4]
rounds = 40
opening = 4
move_ms = 2000
concurrency = 1
[[bot]]
name = "greedy"
command = "builtin:greedy"
[[bot]]
name = "greedy-2"
command = "builtin:greedy"
[[bot]]
name = "random"
command = "builtin:random"
[[bot]]
name = "random-2"
command = "builtin:random"
EOF
  echo
  echo "real games: a league of the instant built-in bots, every deal in all seatings"
  "$mv" league "$work/league.toml" --out "$work/league" >/dev/null 2>"$work/log"
  "$sprt" records "$work/league/games.jsonl" --pair greedy:greedy-2 --pair random:random-2 \
    --pair greedy:random --pair greedy-2:random-2 --pair greedy:random-2 --pair greedy-2:random
fi

if [ -n "${ENGINES:-}" ]; then
  echo
  echo "in-process engine games: twin pairs from random 4-move openings"
  "$sprt" engines --pairs "$ENGINES" --move-ms 20 --players 3 --seed 5 mcts brs+ greedy random brs 2>/dev/null
fi
