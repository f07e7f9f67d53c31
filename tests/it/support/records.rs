//! Game records the tests read back from multiversi, and the checks every recorded game must
//! pass whatever the test is about.

use multiversi::record::GameRecord;
use multiversi::rules::{Outcome, Position};
use std::path::Path;

/// Every game of a record file, in order; a line that does not parse fails the test.
pub fn read_records(path: &Path) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("record file {}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).expect("record line parses"))
        .collect()
}

/// Replays a record's moves through the rules and checks every recorded fact against them; the
/// end (the game is over, the final board, scores, result and ranking) is also worked out by the
/// plain second implementation in `reference.rs`, so a truncated record or a wrong ranking fails.
#[track_caller]
pub fn check_record(record: &GameRecord) {
    let mut position = Position::new(record.rules.clone());
    assert_eq!(position.rows(), record.initial_rows);
    let mut faults = record.faults.iter().peekable();
    for m in &record.moves {
        while let Some(f) = faults.next_if(|f| f.ply <= m.ply) {
            position.remove_seat(f.seat);
        }
        assert_eq!(position.ply(), m.ply);
        assert_eq!(position.to_move(), m.seat, "ply {}", m.ply);
        let played = position.play(m.square).expect("recorded move is legal");
        assert_eq!(played.flips, m.flips);
        assert_eq!(played.kind, m.kind);
        assert!(m.ms >= 0.0);
    }
    assert_eq!(position.rows(), record.final_rows);
    assert_eq!(position.scores(), record.scores);
    let eligible: Vec<bool> = (0..record.rules.players as usize)
        .map(|s| !record.faults.iter().any(|f| f.seat == s))
        .collect();
    assert_eq!(
        Outcome::decide(&record.scores, record.rules.anti, &eligible),
        record.result
    );
    let plain = crate::reference::plain_end(record);
    assert!(
        plain.ended,
        "game {}: the board is not finished and more than one player is left",
        record.game
    );
    assert_eq!(plain.rows, record.final_rows, "final rows");
    assert_eq!(plain.scores, record.scores, "scores");
    assert_eq!(plain.ranking, record.ranking, "ranking");
    let winner = match record.result {
        Outcome::Win { winner } => Some(winner),
        Outcome::Draw => None,
    };
    assert_eq!(plain.winner, winner, "result");
}

/// Seat 0 was disqualified at `ply` and the game went on without it: it made no move from then
/// on, the others filled the board, and seat 0 ranks last (the record also passes
/// `check_record`).
#[track_caller]
pub fn check_disqualified(r: &GameRecord, ply: u32) {
    check_record(r);
    assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
    assert_eq!(r.faults[0].seat, 0);
    assert_eq!(r.faults[0].ply, ply);
    assert!(r.moves.iter().all(|m| m.seat != 0 || m.ply < ply));
    assert!(r.moves.iter().any(|m| m.ply > ply), "the game went on");
    assert!(
        !r.final_rows.iter().any(|row| row.contains('.')),
        "the board was filled"
    );
    assert_eq!(r.ranking.last(), Some(&vec![0]));
    assert_ne!(r.result, Outcome::Win { winner: 0 });
}

#[test]
fn check_record_refuses_a_truncated_game_or_a_wrong_ranking() {
    use super::samples::{game, Spec};
    let good = game(&Spec::new(4, multiversi::rules::BoardKind::Eight, 3));
    check_record(&good);
    let panics = |r: GameRecord| std::panic::catch_unwind(move || check_record(&r)).is_err();
    // The record of a game cut off after 30 moves, consistent in itself otherwise.
    let mut cut = good.clone();
    cut.moves.truncate(30);
    let mut position = Position::new(cut.rules.clone());
    for m in &cut.moves {
        position.play(m.square).unwrap();
    }
    cut.final_rows = position.rows();
    cut.scores = position.scores();
    let eligible = vec![true; 4];
    cut.result = Outcome::decide(&cut.scores, false, &eligible);
    cut.ranking = multiversi::rules::ranking(&cut.scores, false, &eligible);
    assert!(panics(cut), "a truncated game passed");
    let mut wrong = good.clone();
    wrong.ranking.reverse();
    assert!(panics(wrong), "a reversed ranking passed");
}

/// The seat of the scripted bot playing `mode` (a word of its command).
pub fn seat_of(r: &GameRecord, mode: &str) -> usize {
    r.seats
        .iter()
        .position(|s| s.command.iter().any(|word| word == mode))
        .unwrap_or_else(|| panic!("no seat plays {mode}: {:?}", r.seats))
}

/// `replay --verify` accepts every game of the record file.
pub fn verify_holds(path: &Path) {
    super::multiversi("replay")
        .arg("--verify")
        .arg(path)
        .run()
        .assert_code(0);
}
