#!/usr/bin/env python3
"""A bot for the tests of OS limits and sandboxes: it plays its first legal move, and at its first
turn reaches for one resource without end, or reports what it may do in its ready name.

    greedy_for_resources.py PIDFILE MODE [ARG]

MODE:
  memory    allocates (and touches) memory until an allocation fails; the MemoryError ends it
  cpu       computes forever
  cpu-stubborn  catches SIGXCPU, computes for ARG CPU seconds at its first turn, then answers
  cpu-each-game computes for ARG CPU seconds at its first turn of every game, then answers
  file-size writes a file in its directory until the size limit stops it; SIGXFSZ is left at
            its default action, as in a C program (Python itself ignores it)
  files     opens files until it may open no more; the OSError ends it
  env       plays normally; its ready name lists its environment: "env:NAME=VALUE;..."
  sandbox   plays normally; its ready name tells whether it could connect to 127.0.0.1:ARG and
            write a file in the directory given after the port (ARG is PORT:DIR)

It appends its own PID to PIDFILE so that the tests can check that no process remains.
"""
import json
import os
import signal
import socket
import sys
import time

pidfile, mode = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else ""

with open(pidfile, "a") as f:
    f.write(f"{os.getpid()}\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def try_network_and_write():
    port, _, outside = arg.partition(":")
    outcome = []
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=2):
            outcome.append("net=open")
    except OSError as e:
        outcome.append(f"net=blocked({e.errno})")
    try:
        with open(os.path.join(outside, "escaped.txt"), "w") as f:
            f.write("out of the sandbox\n")
        outcome.append("write=open")
    except OSError as e:
        outcome.append(f"write=blocked({e.errno})")
    try:
        with open("inside.txt", "w") as f:
            f.write("in its own directory\n")
        outcome.append("own-dir=writable")
    except OSError as e:
        outcome.append(f"own-dir=blocked({e.errno})")
    return ",".join(outcome)


def misbehave():
    print(f"reaching for {mode}", file=sys.stderr, flush=True)
    if mode == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(b"x" * (4 << 20)))
    elif mode == "cpu":
        while True:
            pass
    elif mode in ("cpu-stubborn", "cpu-each-game"):
        if mode == "cpu-stubborn":
            signal.signal(signal.SIGXCPU, lambda *_: None)
        start = time.process_time()
        while time.process_time() - start < float(arg):
            pass
    elif mode == "file-size":
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        with open("huge.bin", "wb") as f:
            while True:
                f.write(b"\0" * (1 << 20))
                f.flush()
    elif mode == "files":
        held = []
        while True:
            held.append(open(os.devnull))


turns = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        turns = 0
        name = "resources-" + mode
        if mode == "env":
            name = "env:" + ";".join(f"{k}={v}" for k, v in sorted(os.environ.items()))
        elif mode == "sandbox":
            name = try_network_and_write()
        send({"type": "ready", "name": name, "version": "1"})
    elif msg["type"] == "turn":
        turns += 1
        if turns == 1:
            misbehave()
        send({"type": "move", "square": msg["legal"][0]})
