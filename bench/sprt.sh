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
#   4. with TESTS=N, N whole `multiversi sprt` runs of two copies of the built-in random (elo0 0,
#      elo1 30, seeds 1 to N; the field greedy and random): how often each verdict comes, and the
#      games it takes; with POSITIVE=1, one run of `best` against `best` thinking at most 10 ms a
#      move (100 ms per move for both), which must accept H1;
#   3. with ENGINES=N, the same for N twin pairs of the search engines (mcts against brs+, a third
#      seat from greedy, random and brs, 20 ms per move) played in-process, so that a loaded
#      machine weakens them instead of timing them out (about 1 s a pair).
# Usage:
#   bash bench/sprt.sh            # 1000 tests per row, elo0 0, elo1 10 (a few minutes)
#   bash bench/sprt.sh --quick    # 100 tests per row, elo1 40: seconds
#   REAL=1 ENGINES=200 bash bench/sprt.sh
#   TESTS=100 POSITIVE=1 bash bench/sprt.sh --quick
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

if [ -n "${TESTS:-}" ] || [ -n "${POSITIVE:-}" ]; then
  source bench/common.sh
  mv=$(multiversi_bin)
  tests=$(mktemp -d)
  trap 'rm -rf "$tests"' EXIT
  # The top-level "games" of sprt.json (two spaces in: the fields' own "games" are deeper).
  games_of() { grep -m1 '^  "games"' "$1/sprt.json" | tr -dc 0-9; }
fi

if [ -n "${TESTS:-}" ]; then
  echo
  echo "real tests: $TESTS runs of multiversi sprt, random against a second random (elo0 0, elo1 30)"
  h1=0 h0=0 undecided=0 total=0
  for seed in $(seq 1 "$TESTS"); do
    code=0
    "$mv" sprt builtin:random builtin:random --elo1 30 --seed "$seed" --move-ms 2000 \
      --out "$tests/null-$seed" >/dev/null 2>&1 || code=$?
    case $code in
      0) h1=$((h1 + 1)) ;;
      10) h0=$((h0 + 1)) ;;
      11) undecided=$((undecided + 1)) ;;
      *) echo "run $seed failed with exit $code"; exit 1 ;;
    esac
    total=$((total + $(games_of "$tests/null-$seed")))
    rm -rf "$tests/null-$seed"
  done
  echo "H1 accepted (false positives): $h1 of $TESTS; H0 accepted: $h0; undecided: $undecided; mean games $((total / TESTS))"
fi

if [ -n "${POSITIVE:-}" ]; then
  echo
  echo "real test: best against best thinking at most 10 ms a move, 100 ms per move (elo0 0, elo1 20)"
  code=0
  "$mv" sprt builtin:best "'$mv' bot best --think-ms 10" --name 2=best-10ms --elo1 20 --seed 1 \
    --move-ms 100 --out "$tests/positive" >"$tests/positive.out" 2>"$tests/positive.err" || code=$?
  tail -n 7 "$tests/positive.out"
  echo "exit $code after $(games_of "$tests/positive") games"
  [ "$code" = 0 ] || { echo "the handicapped copy was not found weaker"; cat "$tests/positive.err"; exit 1; }
fi
