#!/usr/bin/env node
// multiversi starter bot in JavaScript for Node (no packages).
//
// How a bot talks to the referee (protocol version 1, see protocol/PROTOCOL.md):
//  * The referee writes one JSON object per line to our stdin; we answer with one JSON object per
//    line on stdout. Anything for humans goes to stderr (console.error), never to stdout.
//  * "start" -> we answer {"type":"ready","game":...}, echoing the start's game id
//    "turn"  -> we answer {"type":"move","square":"d3","ply":...}, echoing the turn's ply
//    The echo lets the referee tell our answer to this turn from a late second answer to an
//    earlier one; without it, a stray line could be played as our move.
//    "end"   -> no answer; the game is over. Another "start" may follow (next game).
//  * When stdin is closed, we exit.
//  * Unknown message types and unknown fields are ignored, so newer referees still work with us.
//
// Strategy: greedy. Of the legal moves, play the one that flips the most discs.
//
// Run it against the built-in bots:
//   multiversi match "node bots/js/starter.js" builtin:greedy builtin:greedy builtin:random
'use strict';

const readline = require('readline');

const NAME = 'starter-js';
const VERSION = '1';

// Seat number -> the letter of that seat's discs in the board rows: 0 Black, 1 White, 2 Red, 3 Green.
const COLOUR_LETTERS = 'BWRG';
// Letters that are a disc. N is the neutral disc (three-player games): it belongs to nobody, can be
// flipped, and counts as a disc. '.' is empty, '#' blocked, '-' not part of the board.
const DISCS = 'BWRGN';
const DIRECTIONS = [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];

function log(...parts) {
  console.error(`[${NAME}]`, ...parts);
}

// One protocol message: compact JSON on one line. Node has no stdout buffer to flush by hand: the
// write goes out at once (or as soon as the pipe takes it). Never call process.exit() right after
// a write, though: on POSIX pipes the write may still be pending and would be lost.
function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// 'a1' is the top-left corner: column letter from 'a', row number from 1 (top). Returns [row, col]
// counted from 0.
function parseSquare(name) {
  return [parseInt(name.slice(1), 10) - 1, name.charCodeAt(0) - 97];
}

function squareName(row, col) {
  return String.fromCharCode(97 + col) + String(row + 1);
}

// The character at (row, col); outside the rows counts as not part of the board.
function cell(rows, row, col) {
  if (row >= 0 && row < rows.length && col >= 0 && col < rows[row].length) return rows[row][col];
  return '-';
}

function isDisc(ch) {
  return DISCS.includes(ch);
}

// How many discs a disc of letter `me` placed on the empty square (row, col) would flip.
// In each of the eight directions: the unbroken line of discs that are not ours (any mix of other
// colours and neutral discs), closed by one of our discs, flips. An empty, blocked or off-board
// square ends the line without flipping anything.
function countFlips(rows, row, col, me) {
  let total = 0;
  for (const [dr, dc] of DIRECTIONS) {
    let r = row + dr;
    let c = col + dc;
    let run = 0;
    while (isDisc(cell(rows, r, c)) && cell(rows, r, c) !== me) {
      r += dr;
      c += dc;
      run += 1;
    }
    if (run > 0 && cell(rows, r, c) === me) total += run;
  }
  return total;
}

// The legal moves computed from the rows, in case a turn message carries no "legal" list:
// flipping moves if there are any, otherwise every empty square touching a disc (placing).
function ownLegalMoves(rows, me) {
  const empty = [];
  rows.forEach((line, r) => {
    for (let c = 0; c < line.length; c++) if (line[c] === '.') empty.push([r, c]);
  });
  const flipping = empty.filter(([r, c]) => countFlips(rows, r, c, me) > 0);
  const chosen = flipping.length > 0
    ? flipping
    : empty.filter(([r, c]) => DIRECTIONS.some(([dr, dc]) => isDisc(cell(rows, r + dr, c + dc))));
  return chosen.map(([r, c]) => squareName(r, c));
}

// Pick a square for a "turn" message. Improve me!
function chooseMove(message, mySeat) {
  const rows = message.rows;
  const seat = Number.isInteger(message.seat) ? message.seat : mySeat;
  const me = COLOUR_LETTERS[seat];
  // The referee lists the legal moves and their kind. With kind "flipping" every listed move flips
  // something (and we must flip if we can); with kind "placing" nobody can flip anything, all
  // listed moves flip 0, and any of them is fine.
  const legal = Array.isArray(message.legal) && message.legal.length > 0
    ? message.legal
    : ownLegalMoves(rows, me);
  let best = legal[0];
  let bestFlips = -1;
  for (const name of legal) {
    const [row, col] = parseSquare(name);
    const flips = countFlips(rows, row, col, me);
    if (flips > bestFlips) { // strictly more: on a tie keep the earlier square
      best = name;
      bestFlips = flips;
    }
  }
  return best;
}

let mySeat = 0;

function handle(line) {
  line = line.trim();
  if (line === '') return;
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    log('not JSON, ignored:', line.slice(0, 80));
    return;
  }
  if (message === null || typeof message !== 'object') return;

  switch (message.type) {
    case 'start':
      mySeat = Number.isInteger(message.seat) ? message.seat : 0;
      log(`game ${message.game}: seat ${mySeat} (${message.colour})`);
      send({ type: 'ready', name: NAME, version: VERSION, game: message.game });
      break;
    case 'turn': {
      let square;
      try {
        square = chooseMove(message, mySeat);
      } catch (error) { // never stay silent: a late answer is a lost turn
        log('error choosing a move:', error);
        square = (message.legal || ['a1'])[0];
      }
      send({ type: 'move', square, ply: message.ply });
      break;
    }
    case 'end':
      log(`game ${message.game} over: ${JSON.stringify(message.result)}, scores ${JSON.stringify(message.scores)}`);
      break;
    default:
      // Any other type: ignore it (future protocol versions may add messages).
      break;
  }
}

// readline hands us stdin one line at a time. When stdin is closed, readline closes, nothing is
// left to wait for, and Node exits by itself (after any pending output is written).
const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', handle);
input.on('close', () => log('stdin closed, bye'));
