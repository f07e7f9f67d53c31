#!/usr/bin/env python3
"""A bot that speaks the protocol except for one mistake, for the tests of `check-bot`.

    broken.py MODE [ARG]

It plays its first legal move, and:
  never-ready      reads its input but never answers start
  illegal-placing  when only placing moves exist, plays an empty square that touches no disc
  crash-no-discs   crashes (an uncaught exception) when it has no discs of its own
  only-8x8         crashes on any board but 8x8 (it assumes 8 rows)
  second-move      plays the second legal move, so it crashes when only one is left
  debug-print      prints a debugging line on stdout before each move
  debug-start      prints a debugging line on stdout before each ready
  answer-end       answers end with a line
  exit-after-end   exits after each game instead of waiting for the next start
  ignore-eof       keeps running when its stdin closes
  slow             sleeps ARG milliseconds before each move from ply 40 on
  strict           refuses (crashes on) any field the protocol does not define
  hog-memory       allocates 1 GiB on its first turn
If the environment names BROKEN_PIDFILE, it appends its pid there (to check that none is left).
"""
import json
import os
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else None
if os.environ.get("BROKEN_PIDFILE"):
    with open(os.environ["BROKEN_PIDFILE"], "a") as f:
        f.write(f"{os.getpid()}\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def touches_disc(rows, r, c):
    n = len(rows)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < n and 0 <= cc < n and rows[rr][cc] in "BWRGN":
                return True
    return False


KNOWN = {
    "start": {"type", "protocol", "game", "seat", "colour", "players", "rules", "size", "rows",
              "time"},
    "turn": {"type", "game", "ply", "seat", "rows", "moves", "legal", "kind", "time_ms",
             "clocks_ms", "out", "last_move_ms"},
    "end": {"type", "game", "result", "scores", "rows", "faults"},
}

seat = 0
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if mode == "strict":
        unknown = set(msg) - KNOWN.get(kind, set(msg))
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)}")
    if kind == "start":
        seat = msg["seat"]
        if mode == "never-ready":
            continue
        if mode == "debug-start":
            print("got start, I am seat", seat, flush=True)
        send({"type": "ready", "name": "broken-" + mode, "version": "1"})
    elif kind == "end":
        if mode == "answer-end":
            send({"type": "move", "square": "a1"})
        if mode == "exit-after-end":
            sys.exit(0)
    elif kind == "turn":
        rows = msg["rows"]
        legal = msg["legal"]
        square = legal[0]
        if mode == "illegal-placing" and msg["kind"] == "placing":
            n = len(rows)
            square = next(f"{chr(97 + c)}{r + 1}" for r in range(n) for c in range(n)
                          if rows[r][c] == "." and not touches_disc(rows, r, c))
        elif mode == "crash-no-discs":
            mine = "BWRG"[seat]
            if not any(mine in row for row in rows):
                raise RuntimeError("no discs of my own: cannot happen, can it?")
        elif mode == "only-8x8":
            if len(rows) != 8:
                raise ValueError(f"expected 8 rows, got {len(rows)}")
        elif mode == "second-move":
            square = legal[1]
        elif mode == "debug-print":
            print(f"thinking about {len(legal)} moves")
            sys.stdout.flush()
        elif mode == "hog-memory":
            hoard = bytearray(1 << 30)
        elif mode == "slow" and msg["ply"] >= 40:
            time.sleep(int(arg) / 1000)
        send({"type": "move", "square": square})

if mode == "ignore-eof":
    time.sleep(1000)
