#!/usr/bin/env python3
"""multiversi starter bot in Python 3 (standard library only).

How a bot talks to the referee (protocol version 1, see protocol/PROTOCOL.md):
  * The referee writes one JSON object per line to our stdin; we answer with one JSON object per
    line on stdout, and flush after every line (otherwise the answer sits in a buffer and we time
    out). Anything for humans goes to stderr, never to stdout.
  * "start" -> we answer {"type":"ready","game":...}, echoing the start's game id
    "turn"  -> we answer {"type":"move","square":"d3","ply":...}, echoing the turn's ply
    The echo lets the referee tell our answer to this turn from a late second answer to an earlier
    one; without it, a stray line could be played as our move.
    "end"   -> no answer; the game is over. Another "start" may follow (next game).
  * When stdin is closed, we exit.
  * Unknown message types and unknown fields are ignored, so newer referees still work with us.

Strategy: greedy. Of the legal moves, play the one that flips the most discs.

Run it against the built-in bots:
  multiversi match "python3 bots/python/starter.py" builtin:greedy builtin:greedy builtin:random
"""

import json
import sys

NAME = "starter-python"
VERSION = "1"

# Seat number -> the letter of that seat's discs in the board rows.
COLOUR_LETTERS = "BWRG"  # seat 0 Black, 1 White, 2 Red, 3 Green
# Letters that are a disc. N is the neutral disc (three-player games): it belongs to nobody, can be
# flipped, and counts as a disc. '.' is empty, '#' blocked, '-' not part of the board.
DISCS = "BWRGN"
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def log(*parts):
    """Write a line for humans to stderr (the referee keeps it in the bot's log)."""
    print(f"[{NAME}]", *parts, file=sys.stderr, flush=True)


def send(message):
    """Write one protocol message: compact JSON, one line, flushed at once."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def parse_square(name):
    """'a1' is the top-left corner: column letter from 'a', row number from 1 (top)."""
    return int(name[1:]) - 1, ord(name[0]) - ord("a")  # (row, col), counted from 0


def square_name(row, col):
    return chr(ord("a") + col) + str(row + 1)


def cell(rows, row, col):
    """The character at (row, col); outside the rows counts as not part of the board."""
    if 0 <= row < len(rows) and 0 <= col < len(rows[row]):
        return rows[row][col]
    return "-"


def count_flips(rows, row, col, me):
    """How many discs a disc of letter `me` placed on the empty square (row, col) would flip.

    In each of the eight directions: the unbroken line of discs that are not ours (any mix of
    other colours and neutral discs), closed by one of our discs, flips. An empty, blocked or
    off-board square ends the line without flipping anything.
    """
    total = 0
    for d_row, d_col in DIRECTIONS:
        r, c, run = row + d_row, col + d_col, 0
        while cell(rows, r, c) in DISCS and cell(rows, r, c) != me:
            r, c, run = r + d_row, c + d_col, run + 1
        if run > 0 and cell(rows, r, c) == me:
            total += run
    return total


def own_legal_moves(rows, me):
    """The legal moves computed from the rows, in case a turn message carries no "legal" list:
    flipping moves if there are any, otherwise every empty square touching a disc (placing)."""
    empty = [(r, c) for r in range(len(rows)) for c in range(len(rows[r])) if rows[r][c] == "."]
    flipping = [(r, c) for r, c in empty if count_flips(rows, r, c, me) > 0]
    if flipping:
        return [square_name(r, c) for r, c in flipping]
    return [
        square_name(r, c)
        for r, c in empty
        if any(cell(rows, r + dr, c + dc) in DISCS for dr, dc in DIRECTIONS)
    ]


def choose_move(message, my_seat):
    """Pick a square for a "turn" message. Improve me!"""
    rows = message["rows"]
    seat = message.get("seat", my_seat)
    me = COLOUR_LETTERS[seat]
    # The referee lists the legal moves and their kind. With kind "flipping" every listed move
    # flips something (and we must flip if we can); with kind "placing" nobody can flip anything,
    # all listed moves flip 0, and any of them is fine.
    legal = message.get("legal") or own_legal_moves(rows, me)
    best, best_flips = legal[0], -1
    for name in legal:
        row, col = parse_square(name)
        flips = count_flips(rows, row, col, me)
        if flips > best_flips:  # strictly more: on a tie keep the earlier square
            best, best_flips = name, flips
    return best


def main():
    my_seat = 0
    while True:
        line = sys.stdin.readline()
        if not line:  # stdin closed: the referee is done with us
            break
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            log("not JSON, ignored:", line[:80])
            continue
        kind = message.get("type") if isinstance(message, dict) else None

        if kind == "start":
            my_seat = message.get("seat", 0)
            log(f"game {message.get('game')}: seat {my_seat} ({message.get('colour')})")
            send({"type": "ready", "name": NAME, "version": VERSION, "game": message.get("game")})
        elif kind == "turn":
            try:
                square = choose_move(message, my_seat)
            except Exception as error:  # never stay silent: a late answer is a lost turn
                log("error choosing a move:", repr(error))
                square = (message.get("legal") or ["a1"])[0]
            send({"type": "move", "square": square, "ply": message.get("ply")})
        elif kind == "end":
            log(f"game {message.get('game')} over: {message.get('result')}, "
                f"scores {message.get('scores')}")
        # Any other type: ignore it (future protocol versions may add messages).


if __name__ == "__main__":
    main()
