#!/usr/bin/env bash
# The runner's figures, from one run:
#   1. league throughput with instant bots (the hidden `bench-bot`) on 8x8, 4 players: games per
#      second at concurrency 1 and 2 and their ratio (goal: at least 1.9x on 2 idle cores; every
#      league records its games);
#   2. the same for `match` with four instant bots, with and without `--record`: the ratio of
#      concurrency 2 to 1 with records (goal 1.9x), and what recording costs per game (goal: at
#      most 5 % more than without);
#      all three also with --pin-cpus (each game and its bots on one CPU): where waking an idle
#      CPU is slow (a virtual machine whose idle CPUs halt), concurrency 1 without it measures
#      mostly those wake-ups, so its ratio of 2 against 1 and the cost of --record say little
#      about the runner itself;
#   3. the referee's peak RSS during a 10,000-game league (goal: at most 8 MB): records stream to
#      disk, and the runner keeps per-bot tallies, not games.
# Every figure is measured in alternating rounds, so that all see the same machine load; the best
# round counts.
# Usage: bash bench/league.sh [GAMES]   (games per throughput round, default 1200)
#        bash bench/league.sh --quick   (one round of 120 games, a 360-game league for the
#                                        memory: seconds; the test suite runs it so that the
#                                        script cannot break unnoticed)
# Environment: BIN, the multiversi binary to measure (default: `cargo build --release`'s);
#              ROUNDS, the alternating rounds of the throughput figures (default 3);
#              BASELINE, another multiversi binary (say, a build of an older commit) measured
#              alongside in the same rounds, for before/after ratios in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
games=1200 rounds_of=${ROUNDS:-3} big_bots=8 big_rounds=6
if [ "${1:-}" = --quick ]; then
  games=120 rounds_of=1 big_bots=6 big_rounds=1
elif [ -n "${1:-}" ]; then
  games=$1
fi
# Records go under target/, on the disk where a user's records would be (a tmpfs /tmp would
# make every sync free).
mkdir -p target
work=$(mktemp -d "$PWD/target/bench-league.XXXXXX")
trap 'rm -rf "$work"' EXIT

declare -A bin
bin[new]=$(multiversi_bin)
programs=(new)
baseline=$(baseline_copy "$work")
if [ -n "$baseline" ]; then
  bin[baseline]=$baseline
  programs+=(baseline)
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')," \
  "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# A league of N instant bots, 4 players, one board: C(N,4) deals x 24 seatings x ROUNDS games.
config() { # file, binary, bots, rounds
  {
    echo "name = \"bench\""
    echo "seed = 1"
    echo "players = 4"
    echo "rounds = $4"
    for i in $(seq 1 "$3"); do
      # The binary's path quoted inside the command: it may hold a space.
      printf '[[bot]]\nname = "b%d"\ncommand = "\047%s\047 bench-bot"\n' "$i" "$2"
    done
  } >"$1"
}

# Runs one measured command; appends "PROGRAM KIND CONCURRENCY GAMES/S" to $work/rates.
measure() { # program kind concurrency expected-games command...
  local p=$1 kind=$2 c=$3 expected=$4 s e n
  shift 4
  rm -rf "$work/out" "$work/m.jsonl"
  s=$(date +%s.%N)
  "$@" >"$work/table" 2>"$work/log"
  e=$(date +%s.%N)
  if [ -f "$work/out/games.jsonl" ]; then n=$(wc -l <"$work/out/games.jsonl");
  elif [ -f "$work/m.jsonl" ]; then n=$(wc -l <"$work/m.jsonl"); else n=$expected; fi
  [ "$n" -eq "$expected" ] || { echo "expected $expected games, got $n"; cat "$work/log"; exit 1; }
  case $kind in league) no_faults "$work/table" 5 ;; *) no_faults "$work/table" 4 ;; esac
  awk -v s="$s" -v e="$e" -v n="$n" -v c="$c" -v r="$round" -v p="$p" -v k="$kind" 'BEGIN {
    printf "round %d: %s, %s, concurrency %d: %d games in %.2f s, %.1f games/s\n", r, p, k, c, n, e - s, n / (e - s) }'
  awk -v s="$s" -v e="$e" -v n="$n" -v c="$c" -v p="$p" -v k="$kind" 'BEGIN {
    printf "%s %s %d %.1f\n", p, k, c, n / (e - s) }' >>"$work/rates"
}

# 1 and 2. Throughput. 5 bots make 5 deals of 24 games a league round.
league_rounds=$(( (games + 119) / 120 ))
league_games=$((league_rounds * 120))
for p in "${programs[@]}"; do config "$work/$p.toml" "${bin[$p]}" 5 "$league_rounds"; done
for round in $(seq 1 "$rounds_of"); do
  for c in 1 2; do
    for p in "${programs[@]}"; do
      mv=${bin[$p]} bot="'${bin[$p]}' bench-bot"
      measure "$p" league "$c" "$league_games" \
        "$mv" league "$work/$p.toml" --out "$work/out" --concurrency "$c"
      measure "$p" "match" "$c" "$games" \
        "$mv" match "$bot" "$bot" "$bot" "$bot" --games "$games" --seed 1 --concurrency "$c"
      measure "$p" "match --record" "$c" "$games" \
        "$mv" match "$bot" "$bot" "$bot" "$bot" --games "$games" --seed 1 --concurrency "$c" \
        --record "$work/m.jsonl"
      # Each game on one CPU of its own (a baseline from before the option has none).
      if [ "$p" = new ]; then
        measure "$p" "league --pin-cpus" "$c" "$league_games" \
          "$mv" league "$work/$p.toml" --out "$work/out" --concurrency "$c" --pin-cpus
        measure "$p" "match --pin-cpus" "$c" "$games" \
          "$mv" match "$bot" "$bot" "$bot" "$bot" --games "$games" --seed 1 --concurrency "$c" \
          --pin-cpus
        measure "$p" "match --record --pin-cpus" "$c" "$games" \
          "$mv" match "$bot" "$bot" "$bot" "$bot" --games "$games" --seed 1 --concurrency "$c" \
          --record "$work/m.jsonl" --pin-cpus
      fi
    done
  done
done
best() { # program kind concurrency
  awk -v p="$1" -v k="$2" -v c="$3" '{ kind = $2; for (i = 3; i < NF - 1; i++) kind = kind " " $i }
    $1 == p && kind == k && $(NF - 1) == c && $NF > b { b = $NF } END { print b }' "$work/rates"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
summary= # for bench/summary.sh: one line per figure, printed at the end
echo
echo "| program | figure | concurrency 1, games/s | concurrency 2, games/s | 2 against 1 | goal |"
echo "|---|---|---:|---:|---:|---:|"
for p in "${programs[@]}"; do
  kinds=(league "match" "match --record")
  if [ "$p" = new ]; then kinds+=("league --pin-cpus" "match --pin-cpus" "match --record --pin-cpus"); fi
  for kind in "${kinds[@]}"; do
    a=$(best "$p" "$kind" 1) b=$(best "$p" "$kind" 2)
    case $kind in match | "match --pin-cpus") goal= ;; *) goal=1.9 ;; esac
    echo "| $p | $kind, instant bots, 8x8, 4 players | $a | $b | $(ratio "$b" "$a")x | $goal |"
    if [ "$p" = new ] && [ -n "$goal" ]; then
      summary+="summary: c2_over_c1_${kind// /_} $(ratio "$b" "$a")"$'\n'
    fi
  done
done
echo
echo "| program | what --record costs per game: time with against without | concurrency 1 | concurrency 2 | goal |"
echo "|---|---|---:|---:|---:|"
for p in "${programs[@]}"; do
  echo "| $p | match, instant bots | $(ratio "$(best "$p" "match" 1)" "$(best "$p" "match --record" 1)")x" \
    "| $(ratio "$(best "$p" "match" 2)" "$(best "$p" "match --record" 2)")x | 1.05x |"
  if [ "$p" = new ]; then
    echo "| $p | match --pin-cpus, instant bots | $(ratio "$(best "$p" "match --pin-cpus" 1)" "$(best "$p" "match --record --pin-cpus" 1)")x" \
      "| $(ratio "$(best "$p" "match --pin-cpus" 2)" "$(best "$p" "match --record --pin-cpus" 2)")x | 1.05x |"
    for c in 1 2; do
      summary+="summary: record_cost_c$c $(ratio "$(best new "match" $c)" "$(best new "match --record" $c)")"$'\n'
      summary+="summary: record_cost_pinned_c$c $(ratio "$(best new "match --pin-cpus" $c)" "$(best new "match --record --pin-cpus" $c)")"$'\n'
    done
  fi
done
if [ -n "${BASELINE:-}" ]; then
  echo
  echo "| figure | new against baseline, concurrency 1 | concurrency 2 |"
  echo "|---|---:|---:|"
  for kind in league "match" "match --record"; do
    echo "| $kind | $(ratio "$(best new "$kind" 1)" "$(best baseline "$kind" 1)")x" \
      "| $(ratio "$(best new "$kind" 2)" "$(best baseline "$kind" 2)")x |"
  done
fi
echo "(best of $rounds_of rounds; load average after: $(cut -d' ' -f1-3 /proc/loadavg))"

# 3. Peak RSS of the referee over a 10,000-game league: 8 bots, C(8,4) = 70 deals x 24 = 1680
# games a round, 6 rounds = 10,080 games (with --quick, 6 bots and 1 round: 360 games). VmHWM is
# the referee's own high-water mark (its bots and watchdog are other processes), read while it
# runs: the last reading holds the whole peak. The reading with the most resident memory also
# says what it is made of: mapped files (the code of the program and its libraries, the same
# whatever the league's size) against the heap and stacks.
echo
for p in "${programs[@]}"; do
  config "$work/big.toml" "${bin[$p]}" "$big_bots" "$big_rounds"
  rm -rf "$work/out"
  "${bin[$p]}" league "$work/big.toml" --out "$work/out" >/dev/null 2>"$work/log" &
  pid=$!
  kb=0 top=0 split=
  while kill -0 "$pid" 2>/dev/null; do
    # One reading: the high-water mark, and what the resident memory is made of now (mapped
    # files, which are the program's and libraries' code, against the heap and stacks).
    read -r v rss file anon < <(awk '/^VmHWM/ { h = $2 } /^VmRSS/ { r = $2 } /^RssFile/ { f = $2 }
      /^RssAnon/ { a = $2 } END { print h + 0, r + 0, f + 0, a + 0 }' "/proc/$pid/status" 2>/dev/null ||
      echo 0 0 0 0)
    if [ "$v" -gt "$kb" ]; then kb=$v; fi
    if [ "$rss" -gt "$top" ]; then top=$rss split="$file $anon"; fi
    sleep 0.1
  done
  wait "$pid"
  n=$(wc -l <"$work/out/games.jsonl")
  echo "$p: peak RSS of the referee over a $n-game league: $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') MB (goal 8 MB)"
  if [ -n "$split" ]; then
    read -r file anon <<<"$split"
    echo "$p:   at the highest reading ($(awk -v k="$top" 'BEGIN { printf "%.1f", k / 1024 }') MB): mapped files (code) $(awk -v k="$file" 'BEGIN { printf "%.1f", k / 1024 }') MB, heap and stacks $(awk -v k="$anon" 'BEGIN { printf "%.1f", k / 1024 }') MB"
  fi
  if [ "$p" = new ]; then
    summary+="summary: league_rss_mb $(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }') games=$n"$'\n'
  fi
done
printf '%s' "$summary"
