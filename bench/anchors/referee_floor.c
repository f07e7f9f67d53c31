// Not one of the given anchors: the floor of the referee's own shape, measured beside
// pingpong.c in bench/referee.sh. pingpong.c is one parent and one child, the parent blocked in a
// plain read. A referee that enforces a time limit cannot block in a plain read, and a game has
// four bots: here the parent has four children, asks them in turn, and waits for each reply with
// ppoll against a deadline on the reply's pipe and a pidfd of the child (how the referee learns
// that a bot is gone while a helper holds its output), then reads it. The messages are those of
// pingpong.c: REQ bytes out (a turn message), 16 bytes back. Nothing is parsed, no move is
// played, nothing is recorded: whatever the referee takes beyond this is its own work.
// Usage: referee_floor ROUND_TRIPS [REQ]
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BOTS 4

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000, req = argc > 2 ? atoi(argv[2]) : 400;
  int to[BOTS], from[BOTS], pidfd[BOTS];
  pid_t pid[BOTS];
  for (int k = 0; k < BOTS; k++) {
    int a[2], b[2];
    if (pipe(a) || pipe(b)) return 1;
    pid[k] = fork();
    if (pid[k] == 0) { // bot: read a line, answer a line, as in pingpong.c
      close(a[1]); close(b[0]);
      for (int j = 0; j < k; j++) { close(to[j]); close(from[j]); close(pidfd[j]); }
      FILE *in = fdopen(a[0], "r"), *out = fdopen(b[1], "w");
      char *line = NULL; size_t cap = 0;
      while (getline(&line, &cap, in) > 0) { fputs("{\"move\":\"d3\"}\n", out); fflush(out); }
      return 0;
    }
    close(a[0]); close(b[1]);
    to[k] = a[1]; from[k] = b[0];
    pidfd[k] = (int)syscall(SYS_pidfd_open, pid[k], 0);
    if (pidfd[k] < 0) return 1;
  }
  char *msg = malloc(req + 1); memset(msg, 'x', req); msg[req] = '\n';
  char reply[4096];
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++) {
    int k = i % BOTS;
    if (write(to[k], msg, req + 1) != req + 1) return 2;
    struct pollfd wait_for[2] = {{from[k], POLLIN, 0}, {pidfd[k], POLLIN, 0}};
    struct timespec deadline = {1, 0};
    if (ppoll(wait_for, 2, &deadline, NULL) != 1 || !(wait_for[0].revents & POLLIN)) return 3;
    if (read(from[k], reply, sizeof reply) <= 0) return 4;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  for (int k = 0; k < BOTS; k++) { close(to[k]); waitpid(pid[k], NULL, 0); }
  double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("floor round trips: %d in %.3f s = %.2f us each (%.0f /s)\n", n, s, s / n * 1e6, n / s);
  return 0;
}
