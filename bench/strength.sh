#!/usr/bin/env bash
# Strength of the built-in engines, measured with the referee: every matchup is a real
# `multiversi match` between bot processes at 100 ms per move with seats rotating, its games
# recorded; the table (win rates with 95% Wilson intervals, faults, slowest move of the bot under
# test) is computed from the records by bench/table.py.
#
#   bench/strength.sh            # the full run (about 20-30 minutes)
#   GAMES=24 SMALL=12 SHORT=24 LONG=8 bench/strength.sh   # a quicker, rougher run
#   ONLY=ms bench/strength.sh    # only the matchups whose id matches (here: the short limits)
#   bench/strength.sh --quick    # every matchup, one game at 10 ms per move: seconds, and win
#                                # rates that mean nothing (the test suite runs it so that the
#                                # script cannot break unnoticed)
#
# Most matchups play at MOVE_MS per move; the short-limit ones (ids ending in 20ms and 50ms) at
# 20 and 50 ms, where an engine must keep searching without answering late, and one at 1000 ms. Each match plays one
# game at a time (--concurrency 1), so that two matches share the two cores of the machine.
#
# Fixed seeds make the line-ups, seats and random bots repeat; search engines depend on the clock,
# so their games differ from run to run within the intervals. At most two matches run at once.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=
if [ "${1:-}" = --quick ]; then
    QUICK=10 GAMES=1 SMALL=1 SHORT=1 LONG=1 MOVE_MS=10
    if [ -z "${OUT:-}" ]; then
        quick_dir=$(mktemp -d)
        trap 'rm -rf "$quick_dir"' EXIT
        OUT=$quick_dir/strength
    fi
fi
GAMES=${GAMES:-96}    # the bars' matchups
SMALL=${SMALL:-48}    # other rules and head-to-head
SHORT=${SHORT:-48}    # short move limits
LONG=${LONG:-24}      # the long move limit (about 40 s a game)
ONLY=${ONLY:-}        # run only the matchups whose id contains this
MOVE_MS=${MOVE_MS:-100}
SEED=${SEED:-2026}
OUT=${OUT:-target/strength}
BEST=${BEST:-builtin:best}

# BIN=PATH measures another build of the referee and its built-in bots (say, a variant to compare).
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
    BIN=target/release/multiversi
fi
rm -rf "$OUT"
mkdir -p "$OUT"

# [MS=N] matchup ID GAMES "TITLE" HERO OPPONENT... [-- MATCH OPTIONS]
matchup() {
    local id=$1 games=$2 title=$3 hero=$4 ms=${QUICK:-${MS:-$MOVE_MS}}
    shift 4
    case "$id" in *"$ONLY"*) ;; *) return 0 ;; esac
    local bots=("$hero") opts=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do bots+=("$1"); shift; done
    [ $# -gt 0 ] && shift && opts=("$@")
    echo "$hero" >"$OUT/$id.hero"
    echo "$title, $ms ms per move" >"$OUT/$id.title"
    "$BIN" match "${bots[@]}" --games "$games" --move-ms "$ms" --seed "$SEED" --concurrency 1 \
        --record "$OUT/$id.jsonl" "${opts[@]}" >"$OUT/$id.table" 2>"$OUT/$id.log" &
    # Never more than two matches at once.
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
}

G=builtin:greedy R=builtin:random
matchup 01-best-greedy "$GAMES" "best vs 3 greedy, 8x8, 4 players" "$BEST" $G $G $G
matchup 02-best-random "$GAMES" "best vs 3 random, 8x8, 4 players" "$BEST" $R $R $R
matchup 03-best-greedy-3p "$SMALL" "best vs 2 greedy, 8x8, 3 players" "$BEST" $G $G
matchup 04-best-greedy-10 "$SMALL" "best vs 3 greedy, 10x10, 4 players" "$BEST" $G $G $G -- --board 10x10
matchup 05-best-greedy-oct "$SMALL" "best vs 2 greedy, octagon, 3 players" "$BEST" $G $G -- --board octagon
matchup 06-best-greedy-anti "$SMALL" "best vs 3 greedy, 8x8, 4 players, Anti-Reversi" "$BEST" $G $G $G -- --anti
matchup 07-best-greedy-blocked "$SMALL" "best vs 3 greedy, 8x8, 4 players, 4 random blocked squares" "$BEST" $G $G $G -- --blocked-random 4
matchup 08-mcts-brsplus "$SMALL" "mcts vs 3 brs+, 8x8, 4 players" builtin:mcts builtin:brs+ builtin:brs+ builtin:brs+
matchup 09-brsplus-mcts "$SMALL" "brs+ vs 3 mcts, 8x8, 4 players" builtin:brs+ builtin:mcts builtin:mcts builtin:mcts
matchup 10-brsplus-brs "$SMALL" "brs+ vs 3 brs, 8x8, 4 players" builtin:brs+ builtin:brs builtin:brs builtin:brs
matchup 11-brsplus-greedy "$SMALL" "brs+ vs 3 greedy, 8x8, 4 players" builtin:brs+ $G $G $G
matchup 12-mcts-brs "$SMALL" "mcts vs 3 brs, 8x8, 4 players" builtin:mcts builtin:brs builtin:brs builtin:brs
matchup 13-mcts-brsplus-3p10 "$SMALL" "mcts vs 2 brs+, 10x10, 3 players" builtin:mcts builtin:brs+ builtin:brs+ -- --board 10x10
B=builtin:brs+ P=builtin:brs
for ms in 20 50; do
    MS=$ms matchup "14-best-greedy-${ms}ms" "$SHORT" "best vs 3 greedy, 8x8, 4 players" "$BEST" $G $G $G
    MS=$ms matchup "15-best-random-${ms}ms" "$SHORT" "best vs 3 random, 8x8, 4 players" "$BEST" $R $R $R
    MS=$ms matchup "16-best-brsplus-${ms}ms" "$SHORT" "best vs 3 brs+, 8x8, 4 players" "$BEST" $B $B $B
    MS=$ms matchup "17-best-brs-${ms}ms" "$SHORT" "best vs 3 brs, 8x8, 4 players" "$BEST" $P $P $P
done
# A long limit, where the engines search for most of a second per move.
MS=1000 matchup "18-best-brsplus-1000ms" "$LONG" "best vs 3 brs+, 8x8, 4 players" "$BEST" $B $B $B
wait

echo "seed $SEED, $MOVE_MS ms per move unless the matchup says otherwise, seats rotated; records in $OUT"
python3 bench/table.py "$OUT"
