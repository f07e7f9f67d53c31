//! `replay --verify`: plays a recorded game through the rules engine again and lists every way
//! the record disagrees with it. A record is the only trace of a match, so a referee bug, a
//! hand-edited file or a truncated write must be caught here and named precisely (ply, square,
//! what the record says and what the rules say), not just flagged as "bad".

use crate::record::{FaultRecord, GameRecord};
use crate::rules::{Colour, MoveKind, Outcome, Position, Seat, Square};
use std::fmt;

/// One disagreement between a record and the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The number of moves played before the point in question, when it is about one point.
    pub ply: Option<u32>,
    pub what: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ply {
            Some(ply) => write!(f, "ply {ply}: {}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

fn seat_name(seat: Seat) -> String {
    let name = Colour::of_seat(seat).name();
    let mut chars = name.chars();
    let capital: String = chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .collect();
    format!("{capital}{} (seat {seat})", chars.as_str())
}

/// Lists the squares where two boards differ, e.g. `c3 is 'B' in the record but 'W' by the rules`.
/// At most a few squares are named; the count says how many there are.
fn diff_rows(record: &[String], rules: &[String]) -> Option<String> {
    if record == rules {
        return None;
    }
    if record.len() != rules.len() {
        return Some(format!(
            "the record has {} rows, the board has {}",
            record.len(),
            rules.len()
        ));
    }
    let mut diffs = Vec::new();
    for (row, (a, b)) in record.iter().zip(rules).enumerate() {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        if a.len() != b.len() {
            diffs.push(format!(
                "row {} has {} squares, not {}",
                row + 1,
                a.len(),
                b.len()
            ));
            continue;
        }
        for (col, (x, y)) in a.iter().zip(&b).enumerate() {
            if x != y {
                let sq = Square::new(col as u8, row as u8);
                diffs.push(format!(
                    "{sq} is '{x}' in the record but '{y}' by the rules"
                ));
            }
        }
    }
    let n = diffs.len();
    let shown: Vec<String> = diffs.into_iter().take(4).collect();
    let more = if n > 4 {
        format!(" (and {} more)", n - 4)
    } else {
        String::new()
    };
    Some(format!(
        "{n} difference{}: {}{more}",
        if n == 1 { "" } else { "s" },
        shown.join("; ")
    ))
}

fn squares(list: &[Square]) -> String {
    if list.is_empty() {
        return "nothing".into();
    }
    list.iter()
        .map(Square::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn kind_name(kind: MoveKind) -> &'static str {
    match kind {
        MoveKind::Flipping => "flipping",
        MoveKind::Placing => "placing",
    }
}

fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Win { winner } => format!("{} wins", seat_name(*winner)),
        Outcome::Draw => "a draw".into(),
    }
}

/// Plays the record through the engine and returns every problem found (empty: the record holds).
pub fn check(rec: &GameRecord) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut report = |ply: Option<u32>, what: String| problems.push(Problem { ply, what });
    let rules = rec.rules.clone();
    let players = rules.players as usize;

    if rec.seats.len() != players {
        report(
            None,
            format!(
                "the record lists {} seats for a {players}-player game",
                rec.seats.len()
            ),
        );
    }
    for (i, seat) in rec.seats.iter().enumerate() {
        if seat.seat != i || seat.colour != Colour::of_seat(i) {
            report(
                None,
                format!(
                    "seat entry {i} says seat {} {}, expected seat {i} {}",
                    seat.seat,
                    seat.colour,
                    Colour::of_seat(i)
                ),
            );
        }
    }

    let mut position = Position::new(rules.clone());
    if let Some(diff) = diff_rows(&rec.initial_rows, &position.rows()) {
        report(
            Some(0),
            format!("the initial board is not the start position of these rules: {diff}"),
        );
    }

    // Faults in ply order; each must name a seat of the game once, at a ply the game reached.
    let mut faults: Vec<&FaultRecord> = Vec::new();
    let mut faulted = vec![false; players];
    for fault in &rec.faults {
        if fault.seat >= players {
            report(
                Some(fault.ply),
                format!(
                    "a fault for seat {}, which is not in a {players}-player game",
                    fault.seat
                ),
            );
        } else if faulted[fault.seat] {
            report(
                Some(fault.ply),
                format!("{} is disqualified a second time", seat_name(fault.seat)),
            );
        } else if fault.ply as usize > rec.moves.len() {
            report(
                Some(fault.ply),
                format!(
                    "a fault of {} after the game's last move (the record has {} moves)",
                    seat_name(fault.seat),
                    rec.moves.len()
                ),
            );
        } else {
            faulted[fault.seat] = true;
            faults.push(fault);
        }
    }
    faults.sort_by_key(|f| f.ply);
    let mut pending = faults.iter().peekable();
    // The seats still playing. The referee ends a game once at most one is left, and may
    // disqualify even the last one, which the position itself refuses to remove.
    let mut playing = vec![true; players];
    let mut apply_faults = |position: &mut Position, ply: u32, report: &mut dyn FnMut(String)| {
        while let Some(fault) = pending.next_if(|f| f.ply == ply) {
            // Any seat may be disqualified at any ply, not only the seat to move: the referee
            // watches every bot all the time, and one that writes unasked or dies between its
            // turns is disqualified when that is noticed.
            if position.is_over() {
                report(format!(
                    "{} is disqualified after the game was over",
                    seat_name(fault.seat)
                ));
            }
            position.remove_seat(fault.seat);
            playing[fault.seat] = false;
        }
        playing.iter().filter(|&&p| p).count()
    };

    let mut complete = true;
    for (i, m) in rec.moves.iter().enumerate() {
        let ply = i as u32;
        let left = apply_faults(&mut position, ply, &mut |what| report(Some(ply), what));
        if m.ply != ply {
            report(
                Some(ply),
                format!(
                    "the move is numbered ply {} (moves must be numbered from 0 in order)",
                    m.ply
                ),
            );
        }
        if !m.ms.is_finite() || m.ms < 0.0 {
            report(
                Some(ply),
                format!("the move time {} ms is not a duration", m.ms),
            );
        }
        if position.is_over() || left <= 1 {
            let why = if position.is_over() {
                "the board was finished"
            } else {
                "at most one player was left"
            };
            report(
                Some(ply),
                format!(
                    "{} plays {} but the game was already over: {why} ({} moves recorded)",
                    seat_name(m.seat),
                    m.square,
                    rec.moves.len()
                ),
            );
            complete = false;
            break;
        }
        let to_move = position.to_move();
        if m.seat != to_move {
            let why = if faults.iter().any(|f| f.seat == m.seat && f.ply <= ply) {
                " (it was disqualified earlier)"
            } else {
                ""
            };
            report(
                Some(ply),
                format!(
                    "the record has {} moving{why}, but it is {}'s turn",
                    seat_name(m.seat),
                    seat_name(to_move)
                ),
            );
            complete = false;
            break;
        }
        match position.play(m.square) {
            Err(illegal) => {
                report(
                    Some(ply),
                    format!("{} plays {}: {illegal}", seat_name(m.seat), m.square),
                );
                complete = false;
                break;
            }
            Ok(played) => {
                if played.kind != m.kind {
                    report(
                        Some(ply),
                        format!(
                            "{} at {} is recorded as a {} move but is a {} move",
                            seat_name(m.seat),
                            m.square,
                            kind_name(m.kind),
                            kind_name(played.kind)
                        ),
                    );
                }
                // The rules list flips in board order (by row, then column), and so must the
                // record: the same set in another order is a record not written as documented.
                let mut recorded = m.flips.clone();
                recorded.sort_by_key(|sq| (sq.row, sq.col));
                if recorded == played.flips && m.flips != played.flips {
                    report(
                        Some(ply),
                        format!(
                            "{} at {} flips {}, but the record lists them out of board order: {}",
                            seat_name(m.seat),
                            m.square,
                            squares(&played.flips),
                            squares(&m.flips)
                        ),
                    );
                } else if recorded != played.flips {
                    report(
                        Some(ply),
                        format!(
                            "{} at {} flips {} by the rules, but the record says {}",
                            seat_name(m.seat),
                            m.square,
                            squares(&played.flips),
                            squares(&m.flips)
                        ),
                    );
                }
            }
        }
    }
    if !complete {
        report(
            None,
            "the rest of the game could not be replayed, so its end was not checked".into(),
        );
        return problems;
    }
    let end = rec.moves.len() as u32;
    let left = apply_faults(&mut position, end, &mut |what| report(Some(end), what));

    if !position.is_over() && left > 1 {
        let (moves, _) = position.legal_moves();
        report(
            Some(end),
            format!(
                "the record ends but the game is not over: {} could still play {}",
                seat_name(position.to_move()),
                squares(&moves[..moves.len().min(5)])
            ),
        );
    }
    if let Some(diff) = diff_rows(&rec.final_rows, &position.rows()) {
        report(Some(end), format!("the final board differs: {diff}"));
    }
    let scores = position.scores();
    if rec.scores != scores {
        report(
            Some(end),
            format!(
                "the scores are {:?} in the record but {:?} by the rules",
                rec.scores, scores
            ),
        );
    }
    let eligible: Vec<bool> = (0..players).map(|s| !faulted[s]).collect();
    let outcome = Outcome::decide(&scores, rules.anti, &eligible);
    if rec.result != outcome {
        report(
            Some(end),
            format!(
                "the result is {} in the record but {} by the rules",
                outcome_text(&rec.result),
                outcome_text(&outcome)
            ),
        );
    }
    check_ranking(rec, &scores, &eligible, &mut |what| report(Some(end), what));
    problems
}

/// The ranking must name every seat once: the seats still in the game first, placed by score,
/// then every disqualified seat together in the last place (the order within a place is free).
fn check_ranking(
    rec: &GameRecord,
    scores: &[u32],
    eligible: &[bool],
    report: &mut dyn FnMut(String),
) {
    let expected = crate::rules::ranking(scores, rec.rules.anti, eligible);
    let recorded: Vec<Vec<Seat>> = rec
        .ranking
        .iter()
        .map(|place| {
            let mut p = place.clone();
            p.sort_unstable();
            p
        })
        .collect();
    if recorded != expected {
        report(format!(
            "the ranking is {:?} in the record but {:?} by the scores{}",
            rec.ranking,
            expected,
            if eligible.iter().all(|&e| e) {
                ""
            } else {
                " (the disqualified seats last)"
            }
        ));
    }
}
