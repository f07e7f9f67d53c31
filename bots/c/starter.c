/*
 * multiversi starter bot in C: one file, no libraries beyond the C standard library.
 *   build: gcc -O2 -o starter starter.c
 *   run against the built-in bots:
 *     multiversi match "bots/c/starter" builtin:greedy builtin:greedy builtin:random
 *
 * How a bot talks to the referee (protocol version 1, see protocol/PROTOCOL.md):
 *  - The referee writes one JSON object per line to our stdin; we answer with one JSON object per
 *    line on stdout and call fflush(stdout) after every line (stdout to a pipe is fully buffered:
 *    without the flush the answer never leaves and we time out). Logs go to stderr only.
 *  - "start" -> we answer {"type":"ready","game":...}, echoing the start's game id
 *    "turn"  -> we answer {"type":"move","square":"d3","ply":...}, echoing the turn's ply
 *    The echo lets the referee tell our answer to this turn from a late second answer to an
 *    earlier one; without it, a stray line could be played as our move.
 *    "end"   -> no answer; the game is over. Another "start" may follow (next game).
 *  - When stdin is closed (EOF), we exit.
 *  - Unknown message types and unknown fields are ignored, so newer referees still work with us.
 *
 * The messages are small and simple, so a tiny JSON reader below is enough: it can skip any JSON
 * value and find a member of the top-level object by name. Strategy: greedy - of the legal moves,
 * play the one that flips the most discs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "starter-c"
#define VERSION "1"
#define MAX_SIDE 26     /* boards are at most 10x10; square names go up to z26 */
#define MAX_SQUARES (MAX_SIDE * MAX_SIDE)
#define ITEM 32         /* room for one board row or one square name */

/* Seat number -> the letter of that seat's discs in the board rows: 0 Black, 1 White, 2 Red,
 * 3 Green. "BWRGN" are the discs (N neutral, in three-player games: it belongs to nobody, can be
 * flipped and counts as a disc); '.' is empty, '#' blocked, '-' not part of the board. */
static const char COLOUR_LETTERS[] = "BWRG";
static const char DISCS[] = "BWRGN";
static const int DIRECTIONS[8][2] = {
    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};

/* ---------------------------------------------------------------- reading input lines */

/* Returns the next line without its "\n" (and "\r"), or NULL once stdin is closed. */
static char *read_line(void) {
    static char *buf = NULL;
    static size_t cap = 0;
    size_t len = 0;
    int ch;
    while ((ch = getchar()) != EOF) {
        if (len + 1 >= cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            if (!buf) {
                fprintf(stderr, "[" NAME "] out of memory\n");
                exit(1);
            }
        }
        if (ch == '\n') break;
        buf[len++] = (char)ch;
    }
    if (ch == EOF && len == 0) return NULL;
    buf[len] = '\0';
    if (len > 0 && buf[len - 1] == '\r') buf[len - 1] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- a tiny JSON reader */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Skips one JSON value (string, object, array, number, true/false/null) starting at p.
 * Returns the position just after it, or NULL if the text is malformed. */
static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1]) p++; /* skip the escaped character */
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') { /* an object member: "key": value */
                if (*skip_ws(p) != '"' || !(p = skip_value(p))) return NULL;
                p = skip_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = skip_value(p))) return NULL;
            p = skip_ws(p);
            if (*p == ',') { p++; continue; }
            return *p == close ? p + 1 : NULL;
        }
    }
    const char *start = p; /* number, true, false or null */
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p > start ? p : NULL;
}

/* Finds member `key` of the JSON object at p (top level only, not inside nested objects).
 * Returns a pointer to its value, or NULL if there is no such member. */
static const char *get(const char *p, const char *key) {
    size_t key_len = strlen(key);
    p = skip_ws(p);
    if (*p != '{') return NULL;
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *name = p + 1, *after = skip_value(p);
        if (!after) return NULL;
        int match = (size_t)(after - 1 - name) == key_len && !strncmp(name, key, key_len);
        p = skip_ws(after);
        if (*p != ':') return NULL;
        p = skip_ws(p + 1);
        if (match) return p;
        if (!(p = skip_value(p))) return NULL;
        p = skip_ws(p);
        if (*p != ',') break;
        p = skip_ws(p + 1);
    }
    return NULL;
}

/* Copies the JSON string at p into out (cut to cap-1 bytes). Returns 1 if p is a string.
 * Our messages need no escapes; \" \\ \/ are decoded, any other escape becomes '?'. */
static int get_string(const char *p, char *out, size_t cap) {
    size_t n = 0;
    if (!p || *(p = skip_ws(p)) != '"') return 0;
    for (p++; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) {
            p++;
            ch = (*p == '"' || *p == '\\' || *p == '/') ? *p : '?';
        }
        if (n + 1 < cap) out[n++] = ch;
    }
    out[n] = '\0';
    return *p == '"';
}

/* The JSON value at p exactly as written (for echoing it back), or "null" if there is none:
 * sets *len to its length and returns where it starts. */
static const char *raw_value(const char *p, int *len) {
    const char *after = p ? skip_value(p) : NULL;
    if (!after) {
        *len = 4;
        return "null";
    }
    p = skip_ws(p);
    *len = (int)(after - p);
    return p;
}

/* Reads the JSON integer at p into *out. Returns 1 if p is a number. */
static int get_int(const char *p, int *out) {
    char *end;
    if (!p) return 0;
    long value = strtol(skip_ws(p), &end, 10);
    if (end == skip_ws(p)) return 0;
    *out = (int)value;
    return 1;
}

/* Reads the JSON array of strings at p into items (at most max). Returns the count, -1 if p is
 * not an array of strings. */
static int get_strings(const char *p, char items[][ITEM], int max) {
    int n = 0;
    if (!p || *(p = skip_ws(p)) != '[') return -1;
    p = skip_ws(p + 1);
    if (*p == ']') return 0;
    for (;;) {
        if (n >= max || !get_string(p, items[n++], ITEM) || !(p = skip_value(p))) return -1;
        p = skip_ws(p);
        if (*p == ']') return n;
        if (*p++ != ',') return -1;
    }
}

/* ---------------------------------------------------------------- the board and the rules */

static char rows[MAX_SIDE][ITEM]; /* row 0 is the top row (row "1"); column 0 is 'a' */
static int row_count;

/* The character at (row, col); outside the rows counts as not part of the board. */
static char cell(int row, int col) {
    if (row < 0 || row >= row_count || col < 0 || col >= (int)strlen(rows[row])) return '-';
    return rows[row][col];
}

static int is_disc(char ch) { return ch != '\0' && strchr(DISCS, ch) != NULL; }

/* How many discs a disc of letter `me` placed on the empty square (row, col) would flip.
 * In each of the eight directions: the unbroken line of discs that are not ours (any mix of
 * other colours and neutral discs), closed by one of our discs, flips. An empty, blocked or
 * off-board square ends the line without flipping anything. */
static int count_flips(int row, int col, char me) {
    int total = 0;
    for (int d = 0; d < 8; d++) {
        int dr = DIRECTIONS[d][0], dc = DIRECTIONS[d][1];
        int r = row + dr, c = col + dc, run = 0;
        while (is_disc(cell(r, c)) && cell(r, c) != me) {
            r += dr;
            c += dc;
            run++;
        }
        if (run > 0 && cell(r, c) == me) total += run;
    }
    return total;
}

/* 'a1' is the top-left corner: column letter from 'a', row number from 1 (top). */
static int parse_square(const char *name, int *row, int *col) {
    if (name[0] < 'a' || name[0] > 'z') return 0;
    *col = name[0] - 'a';
    *row = atoi(name + 1) - 1;
    return *row >= 0;
}

/* The legal moves computed from the rows, in case a turn message carries no "legal" list:
 * flipping moves if there are any, otherwise every empty square touching a disc (placing). */
static int own_legal_moves(char me, char moves[][ITEM]) {
    for (int pass = 0; pass < 2; pass++) { /* pass 0: flipping moves, pass 1: placing moves */
        int n = 0;
        for (int r = 0; r < row_count; r++)
            for (int c = 0; c < (int)strlen(rows[r]); c++) {
                if (cell(r, c) != '.') continue;
                int ok = pass == 0 ? count_flips(r, c, me) > 0 : 0;
                for (int d = 0; pass == 1 && d < 8; d++)
                    if (is_disc(cell(r + DIRECTIONS[d][0], c + DIRECTIONS[d][1]))) ok = 1;
                if (ok) snprintf(moves[n++], ITEM, "%c%d", 'a' + c, r + 1);
            }
        if (n > 0) return n;
    }
    return 0;
}

/* ---------------------------------------------------------------- the bot */

static char legal[MAX_SQUARES][ITEM];

/* Picks a square for a "turn" message into `square`. Improve me! */
static void choose_move(const char *message, int my_seat, char *square) {
    int seat = my_seat;
    get_int(get(message, "seat"), &seat);
    char me = COLOUR_LETTERS[seat & 3];
    row_count = get_strings(get(message, "rows"), rows, MAX_SIDE);
    if (row_count < 0) row_count = 0;
    /* The referee lists the legal moves and their kind. With kind "flipping" every listed move
     * flips something (and we must flip if we can); with kind "placing" nobody can flip anything,
     * all listed moves flip 0, and any of them is fine. */
    int n = get_strings(get(message, "legal"), legal, MAX_SQUARES);
    if (n <= 0) n = own_legal_moves(me, legal);
    strcpy(square, n > 0 ? legal[0] : "a1");
    int best_flips = -1;
    for (int i = 0; i < n; i++) {
        int row, col;
        if (!parse_square(legal[i], &row, &col)) continue;
        int flips = count_flips(row, col, me);
        if (flips > best_flips) { /* strictly more: on a tie keep the earlier square */
            best_flips = flips;
            strcpy(square, legal[i]);
        }
    }
}

int main(void) {
    char *line, type[ITEM], text[ITEM], square[ITEM];
    int my_seat = 0, len;
    const char *echo;
    while ((line = read_line()) != NULL) {
        if (*skip_ws(line) == '\0') continue;
        if (!get_string(get(line, "type"), type, sizeof type)) {
            fprintf(stderr, "[" NAME "] not a protocol message, ignored: %.80s\n", line);
            continue;
        }
        if (!strcmp(type, "start")) {
            my_seat = 0;
            get_int(get(line, "seat"), &my_seat);
            if (!get_string(get(line, "game"), text, sizeof text)) strcpy(text, "?");
            fprintf(stderr, "[" NAME "] game %s: seat %d\n", text, my_seat);
            echo = raw_value(get(line, "game"), &len); /* the game id, escapes and all */
            printf("{\"type\":\"ready\",\"name\":\"" NAME "\",\"version\":\"" VERSION
                   "\",\"game\":%.*s}\n", len, echo);
            fflush(stdout);
        } else if (!strcmp(type, "turn")) {
            choose_move(line, my_seat, square);
            echo = raw_value(get(line, "ply"), &len);
            printf("{\"type\":\"move\",\"square\":\"%s\",\"ply\":%.*s}\n", square, len, echo);
            fflush(stdout);
        } else if (!strcmp(type, "end")) {
            const char *scores = get(line, "scores"), *after = scores ? skip_value(scores) : NULL;
            if (!get_string(get(get(line, "result"), "kind"), text, sizeof text)) strcpy(text, "?");
            fprintf(stderr, "[" NAME "] game over: %s, scores %.*s\n", text,
                    after ? (int)(after - scores) : 0, scores ? scores : "");
        }
        /* Any other type: ignore it (future protocol versions may add messages). */
    }
    return 0;
}
