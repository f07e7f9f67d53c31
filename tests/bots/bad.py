#!/usr/bin/env python3
"""A scripted bot for the referee's tests: it plays its first legal move, and misbehaves in one
chosen way at one chosen turn.

    bad.py PIDFILE MODE [TURN] [ARG]

It appends its own PID (and those of any children it starts) to PIDFILE so that the tests can
check afterwards that no process remains. TURN counts this bot's turns in each game from 1
(default 1). A MODE ending in "+echo" (such as "stale+echo") also says in every answer which
message it answers: the start's game in ready, the turn's ply in move.
"""
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time

pidfile, mode = sys.argv[1], sys.argv[2]
echo = mode.endswith("+echo")
mode = mode.removesuffix("+echo")
turn_to_fail = int(sys.argv[3]) if len(sys.argv) > 3 else 1
arg = sys.argv[4] if len(sys.argv) > 4 else None


def note_pid(pid):
    with open(pidfile, "a") as f:
        f.write(f"{pid}\n")


def send(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def big_pipe(fd):
    """Grows the pipe behind fd to 1 MiB (F_SETPIPE_SZ), as a flooder that wants to outrun the
    referee would."""
    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except OSError:
        pass


def flood(fd):
    """Writes to fd without end and without a newline, a whole pipe's worth at a time."""
    chunk = b"x" * (1 << 20)
    while True:
        os.write(fd, chunk)


note_pid(os.getpid())
if mode == "orphan":
    # A helper that ignores SIGTERM and outlives its parent unless its group is killed.
    child = subprocess.Popen(["sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
    note_pid(child.pid)
if mode.startswith("daemon"):
    # A helper that leaves the bot's process group the way a daemon does (fork, setsid, fork),
    # ignores SIGTERM, sleeps long and keeps the bot's stderr open. "daemon" then plays on;
    # "daemon-crash" crashes at TURN; "daemon-stdout" too, but its helper also keeps the bot's
    # stdout open, so the referee sees no end of output when the bot dies.
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            if mode != "daemon-stdout":
                os.dup2(null, 1)
            note_pid(os.getpid())
            os.write(ready_w, b"x")
            time.sleep(1000)
        os._exit(0)
    os.wait()
    # Play only once the helper's pid is written down.
    os.read(ready_r, 1)
if mode == "exit-at-once":
    print("exiting before ready", file=sys.stderr)
    sys.exit(2)
if mode == "mute":
    # Never reads its input and never answers.
    time.sleep(1000)
if mode == "linger":
    # Ignores SIGTERM and stays a while after its input ends, so the referee waits for it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "flood-stderr":
    # Floods stderr from a thread for the whole game, through a 1 MiB pipe, and plays on.
    big_pipe(2)
    threading.Thread(target=flood, args=(2,), daemon=True).start()


def move(square, turn):
    """A move line answering `turn` (with its ply if this bot echoes)."""
    answer = {"type": "move", "square": square}
    if echo:
        answer["ply"] = turn["ply"]
    return json.dumps(answer) + "\n"


turns = 0
starts = 0  # "crash-start": the starts this process has read
stale = None  # "stale": the answer to write again once the next turn has been read
previous_game = None  # "old-game": the game of the start before this one
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "start":
        turns = 0
        stale = None
        starts += 1
        if mode == "crash-start" and starts == turn_to_fail:
            # Plays its first TURN - 1 games, then exits on reading the next start.
            os._exit(3)
        if mode == "no-ready":
            continue
        if mode == "helper-exit-at-start":
            # "helper-exit" (below) before its ready.
            note_pid(subprocess.Popen(["sleep", "30"]).pid)
            os._exit(0)
        if mode == "chatty-start":
            # 300 KB on stderr at the start of every game.
            sys.stderr.write(("chatter " * 1023 + "\n") * 36)
            sys.stderr.flush()
        ready = {"type": "ready", "name": "bad-" + mode, "version": "1"}
        if echo:
            ready["game"] = msg["game"]
        if mode == "old-game":
            # Says it answers the start of the game before (its first start: this one).
            ready["game"] = previous_game or msg["game"]
            previous_game = msg["game"]
        ready = json.dumps(ready) + "\n"
        if mode == "escapes":
            # A name and version that would clear the screen, retitle the terminal and forge a
            # line of output, if printed raw.
            ready = json.dumps({"type": "ready", "name": "evil\x1b[2J\nforged line",
                                "version": "\x1b]0;pwned\x07"}) + "\n"
        if mode == "eager":
            # A move before any turn, in the same write as its ready.
            send(ready + json.dumps({"type": "move", "square": "d3"}) + "\n")
            continue
        send(ready)
        continue
    if kind == "end" and mode == "quit-after-end":
        sys.exit(0)
    if kind == "end" and mode == "crash-after-end":
        sys.exit(3)
    if kind != "turn":
        continue
    turns += 1
    if mode == "spam-last" and sum(row.count(".") for row in msg["rows"]) == 1:
        # The move that fills the board, twice in one write: the second line comes once the
        # game is over.
        answer = json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n"
        send(answer + answer)
        continue
    if stale is not None:
        # The next turn has been read, so the referee has taken the first answer: the second
        # answer to the earlier turn now certainly arrives while this turn's answer is due.
        send(stale)
        stale = None
        continue
    if mode == "chatty":
        # Far more stderr than a pipe holds, every turn: the referee must drain it.
        sys.stderr.write(("chatter " * 8191 + "\n") * 5)
        sys.stderr.flush()
    if mode == "flood-and-play":
        # Floods its stderr for 50 ms at every turn, then answers in time.
        end = time.time() + 0.05
        while time.time() < end:
            os.write(2, b"x" * 65536)
        send(json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n")
        continue
    if mode == "flood-then-hang" and turns < turn_to_fail:
        # Floods its stderr for 300 ms, then answers: the flood is over, save what is left in
        # the pipe, by its next turn, at which it hangs.
        end = time.time() + 0.3
        while time.time() < end:
            os.write(2, b"x" * 65536)
        send(json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n")
        continue
    if mode == "slow" and turns <= turn_to_fail:
        time.sleep(int(arg) / 1000)
    elif turns == turn_to_fail:
        print(f"misbehaving on purpose: {mode}", file=sys.stderr)
        sys.stderr.flush()
        if mode == "escapes":
            sys.stderr.write("\x1b[31mred\x1b[0m\r\nforged stderr line\x1b]0;pwned\x07\n")
            sys.stderr.flush()
            send(json.dumps({"type": "move", "square": "\x1b[2J\nforged move"}) + "\n")
            continue
        if mode in ("hang", "flood-then-hang"):
            time.sleep(1000)
        elif mode == "stderr-hog":
            # Debug output without end instead of a move: more than the referee reads.
            flood(2)
        elif mode in ("crash", "daemon-crash", "daemon-stdout"):
            sys.exit(3)
        elif mode == "crash-bytes":
            # Last words that are not UTF-8: each byte becomes a three-byte U+FFFD in text.
            os.write(2, b"\xff" * 3000)
            sys.exit(3)
        elif mode == "signal":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif mode == "garbage":
            send("this is not json\n")
            continue
        elif mode == "binary":
            sys.stdout.buffer.write(b'{"type":"move","square":"\xff\xfe"}\n')
            sys.stdout.flush()
            continue
        elif mode == "flood":
            chunk = "x" * 65536
            while True:
                send(chunk)
        elif mode == "unknown":
            send('{"type":"pass"}\n')
            continue
        elif mode == "close-stdin":
            # Closes its stdin, answers this turn, and stays alive, reading nothing more.
            os.close(0)
            send(move(msg["legal"][0], msg))
            time.sleep(1000)
        elif mode == "illegal":
            # The first occupied square: never a legal move.
            size = len(msg["rows"])
            sq = next(f"{chr(97 + c)}{r + 1}" for r in range(size) for c in range(size)
                      if msg["rows"][r][c] in "BWRGN")
            send(json.dumps({"type": "move", "square": sq}) + "\n")
            continue
        elif mode == "spam":
            # Two answers to one turn in one write: the second is there when nobody asked.
            answer = json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n"
            send(answer + answer)
            continue
        elif mode == "spam-partial":
            # Its answer, and in the same write the start of a line it never ends.
            answer = json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n"
            send(answer + '{"type":"mo')
            continue
        elif mode == "stale":
            # Answers, and answers the same turn again only after reading its next turn.
            stale = move(msg["legal"][0], msg)
            send(stale)
            continue
        elif mode == "spam-later":
            # A second answer ARG ms after the first, while another bot is thinking.
            answer = json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n"
            send(answer)
            time.sleep(int(arg) / 1000)
            send(answer)
            continue
        elif mode == "die-later":
            # Answers, then dies ARG ms later, while another bot is thinking.
            send(json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n")
            time.sleep(int(arg) / 1000)
            sys.exit(3)
        elif mode == "die-later-helper":
            # Answers, then ARG ms later leaves a helper holding its stdout and exits, while
            # another bot is thinking: taking it out costs the referee a grace to wait.
            send(json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n")
            time.sleep(int(arg) / 1000)
            helper = subprocess.Popen(["sleep", "30"])
            note_pid(helper.pid)
            os._exit(0)
        elif mode in ("helper-exit", "move-helper-exit", "partial-helper-exit"):
            # Starts a helper that inherits its stdout and outlives it, then exits at once (after
            # writing its move, with "move-helper-exit", or its move without the newline, with
            # "partial-helper-exit"): its exit ends no output.
            helper = subprocess.Popen(["sleep", "30"])
            note_pid(helper.pid)
            if mode == "move-helper-exit":
                send(json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n")
            elif mode == "partial-helper-exit":
                send(json.dumps({"type": "move", "square": msg["legal"][0]}))
            os._exit(0)
        elif mode == "flood-pipe":
            # An endless line without a newline through a 1 MiB pipe, as its answer.
            big_pipe(1)
            flood(1)
        elif mode == "flood-idle":
            # Answers, and in the same write starts an endless line, which goes on while
            # other bots are thinking.
            big_pipe(1)
            answer = json.dumps({"type": "move", "square": msg["legal"][0]}) + "\n"
            os.write(1, answer.encode() + b"x" * 65536)
            flood(1)
        elif mode == "crlf":
            # An answer padded with spaces to exactly 16384 bytes, ended by \r\n.
            answer = json.dumps({"type": "move", "square": msg["legal"][0]})
            send(answer + " " * (16384 - len(answer)) + "\r\n")
            continue
        elif mode == "no-newline":
            # Its move without the newline that ends a message, flushed: half a line.
            send(json.dumps({"type": "move", "square": msg["legal"][0]}))
            continue
        elif mode == "no-newline-exit":
            # Its move without the newline, then ARG ms later its exit, which ends the line.
            send(json.dumps({"type": "move", "square": msg["legal"][0]}))
            time.sleep(int(arg) / 1000)
            sys.exit(0)
        elif mode == "square":
            # A move to the square named ARG, whatever the board.
            send(json.dumps({"type": "move", "square": arg}) + "\n")
            continue
        elif mode == "inject":
            # Writes a line into every pipe the referee holds but its own, through /proc: were
            # it let in, each other bot would be disqualified for output nobody asked for. Says
            # on stderr how far it got; then plays its move.
            referee, own = os.getppid(), {os.fstat(fd).st_ino for fd in (0, 1, 2)}
            try:
                fds = os.listdir(f"/proc/{referee}/fd")
            except OSError as e:
                print(f"injection: cannot list the referee's files: {e.strerror}", file=sys.stderr)
                fds = []
            hits = 0
            for fd in fds:
                path = f"/proc/{referee}/fd/{fd}"
                try:
                    if os.readlink(path).startswith("pipe:") and os.stat(path).st_ino not in own:
                        w = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                        os.write(w, b"INJECTED\n")
                        os.close(w)
                        hits += 1
                except OSError:
                    pass
            print(f"injection: wrote into {hits} pipes", file=sys.stderr)
            sys.stderr.flush()
    send(move(msg["legal"][0], msg))

if mode == "linger":
    time.sleep(30)
