#!/usr/bin/env python3
"""A bot for the referee's tests that writes down everything it is sent, plays the first legal
move, and can be told to behave in one particular way.

    probe.py PIDFILE LOGFILE [OPTION=VALUE ...]

It appends its PID to PIDFILE (so that the tests can check in /proc that nothing remains) and
appends to LOGFILE one JSON object per event: {"pid", "t" (wall clock, seconds), "event", "msg"},
where event is "recv" (a message from the referee, in "msg"), "eof" (its stdin ended) or "term"
(it received SIGTERM).

Options (turns and games are counted per process, from 1):
    delay=MS        wait MS before every move (of the first `delay_turns` turns, if given)
    crlf=1          end every line with \\r\\n
    pad=N           pad every move line (without its newline) to exactly N bytes
    fault=MODE      misbehave at turn `at` (default 1):
                      move-at-start  answer `start` with a move (any game)
                      ready-at-turn  answer the turn with `ready`
                      close-stdout   close stdout and keep running
                      late           answer after `ms`
                      half-line      write half a move line, the rest after `ms`
                      stderr-crash   write `bytes` bytes of numbered stderr, then exit 3
                      crash-remove   delete the file `path`, then exit 3
    at=N            the turn of the fault
    ms=MS, bytes=N, path=P   the fault's parameters
    ready_ms=MS     wait MS before answering `start` in game `ready_game` (default 2)
    eof=MODE        at the end of stdin: exit (default), linger (sleep until SIGTERM, then
                    exit 0), stubborn (ignore SIGTERM, sleep until killed)
    cpus=1          write down the CPUs it may run on, as it starts (event "cpus", the
                    kernel's Cpus_allowed_list as "msg")
"""
import json
import os
import signal
import sys
import time

pidfile, logfile = sys.argv[1], sys.argv[2]
opts = dict(a.split("=", 1) for a in sys.argv[3:])
fault = opts.get("fault", "")
fault_turn = int(opts.get("at", "1"))
end_mode = opts.get("eof", "exit")
newline = "\r\n" if opts.get("crlf") == "1" else "\n"


def note(event, msg=None):
    with open(logfile, "a") as f:
        f.write(json.dumps({"pid": os.getpid(), "t": time.time(), "event": event, "msg": msg}) + "\n")


def send(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def on_term(_sig, _frame):
    note("term")
    if end_mode != "stubborn":
        os._exit(0)


with open(pidfile, "a") as f:
    f.write(f"{os.getpid()}\n")
signal.signal(signal.SIGTERM, on_term)
if opts.get("cpus") == "1":
    with open("/proc/self/status") as f:
        allowed = [l.split(":", 1)[1].strip() for l in f if l.startswith("Cpus_allowed_list:")]
    note("cpus", allowed[0] if allowed else None)

games = 0
turns = 0
while True:
    line = sys.stdin.readline()
    if not line:
        break
    msg = json.loads(line)
    note("recv", msg)
    kind = msg["type"]
    if kind == "start":
        games += 1
        if fault == "move-at-start":
            send(json.dumps({"type": "move", "square": "d3"}) + newline)
            continue
        if games == int(opts.get("ready_game", "2")) and "ready_ms" in opts:
            time.sleep(int(opts["ready_ms"]) / 1000)
        send(json.dumps({"type": "ready", "name": "probe", "version": "1"}) + newline)
        continue
    if kind != "turn":
        continue
    turns += 1
    if "delay" in opts and turns <= int(opts.get("delay_turns", "1000000")):
        time.sleep(int(opts["delay"]) / 1000)
    answer = {"type": "move", "square": msg["legal"][0]}
    text = json.dumps(answer)
    if "pad" in opts:
        answer["padding"] = ""
        room = int(opts["pad"]) - len(json.dumps(answer))
        answer["padding"] = "p" * room
        text = json.dumps(answer)
        assert len(text.encode()) == int(opts["pad"])
    if turns == fault_turn:
        if fault == "ready-at-turn":
            send(json.dumps({"type": "ready"}) + newline)
            continue
        if fault == "close-stdout":
            sys.stdout.close()
            try:
                os.close(1)  # sys.stdout does not own the descriptor
            except OSError:
                pass
            time.sleep(1000)
        if fault == "late":
            time.sleep(int(opts["ms"]) / 1000)
        if fault == "half-line":
            half = len(text) // 2
            send(text[:half])
            time.sleep(int(opts["ms"]) / 1000)
            send(text[half:] + newline)
            continue
        if fault == "stderr-crash":
            size = int(opts["bytes"])
            numbered = "".join(f"{i:07d}\n" for i in range(size // 8 + 1))[:size]
            sys.stderr.write(numbered)
            sys.stderr.flush()
            sys.exit(3)
        if fault == "crash-remove":
            os.remove(opts["path"])
            sys.exit(3)
    send(text + newline)

note("eof")
if end_mode in ("linger", "stubborn"):
    while True:
        time.sleep(1000)
