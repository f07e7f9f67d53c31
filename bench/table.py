#!/usr/bin/env python3
"""Win rates with 95% Wilson intervals from the referee's game records (JSON Lines).

usage: table.py DIR   -- reads DIR/*.jsonl; DIR/ID.hero names the bot under test of matchup ID
(its command as given to `multiversi match`, e.g. builtin:best) and DIR/ID.title describes it.
A draw is for the whole table and counts as no win; the fair share of wins is 1/players. Faults
(late or missing answers, crashes, illegal moves) are split between the bot under test and the
others; "slowest move" is the bot under test's slowest move that arrived in time.
"""
import glob
import json
import math
import os
import sys


def wilson(wins, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main():
    folder = sys.argv[1]
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        ident = os.path.basename(path)[: -len(".jsonl")]
        hero = open(os.path.join(folder, ident + ".hero")).read().strip()
        title = open(os.path.join(folder, ident + ".title")).read().strip()
        games = wins = draws = faults = hero_faults = 0
        players = 0
        max_ms = 0.0
        for line in open(path):
            if not line.strip():
                continue
            rec = json.loads(line)
            seats = [s["seat"] for s in rec["seats"] if " ".join(s["command"]) == hero]
            if len(seats) != 1:
                sys.exit(f"{path}: bot under test {hero} must sit in exactly one seat")
            seat = seats[0]
            players = rec["rules"]["players"]
            games += 1
            result = rec["result"]
            if result["kind"] == "win" and result["winner"] == seat:
                wins += 1
            elif result["kind"] == "draw":
                draws += 1
            faults += len(rec["faults"])
            hero_faults += sum(1 for f in rec["faults"] if f["seat"] == seat)
            for m in rec["moves"]:
                if m["seat"] == seat and m.get("ms") is not None:
                    max_ms = max(max_ms, m["ms"])
        lo, hi = wilson(wins, games)
        rows.append((title, games, wins, draws, 100 * wins / max(games, 1), 100 * lo, 100 * hi,
                     100 / max(players, 1), hero_faults, faults - hero_faults, max_ms))
    print("| matchup | games | wins | draws | win % | 95% interval | fair share "
          "| faults: bot under test / others | slowest move |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for t, g, w, d, pct, lo, hi, fair, hf, of, ms in rows:
        print(f"| {t} | {g} | {w} | {d} | {pct:.1f} | {lo:.1f}–{hi:.1f} | {fair:.0f}% "
              f"| {hf} / {of} | {ms:.0f} ms |")


if __name__ == "__main__":
    main()
