//! Sample records for the tests: plays seeded random games with the rules engine and writes
//! them as the referee would, so replay can be tested on every board shape, with blocked squares,
//! neutral discs and faults — and on records damaged on purpose.

use multiversi::record::{
    FaultKind, FaultRecord, GameRecord, MoveRecord, SeatRecord, FORMAT, VERSION,
};
use multiversi::rng::Rng;
use multiversi::rules::{BoardKind, Colour, Outcome, Position, Rules, Seat};
use std::path::Path;

/// What game to generate.
#[derive(Clone, Debug)]
pub struct Spec {
    pub players: u32,
    pub board: BoardKind,
    pub anti: bool,
    pub blocked: &'static str,
    pub seed: u64,
    /// (seat, ply, kind): the seat is disqualified after `ply` moves, on its turn or not.
    pub faults: Vec<(Seat, u32, FaultKind)>,
}

impl Spec {
    pub fn new(players: u32, board: BoardKind, seed: u64) -> Spec {
        Spec {
            players,
            board,
            anti: false,
            blocked: "",
            seed,
            faults: Vec::new(),
        }
    }
}

/// Plays a random game by the spec and returns its record.
pub fn game(spec: &Spec) -> GameRecord {
    let blocked = multiversi::rules::parse_square_list(spec.blocked).expect("blocked list");
    let rules = Rules::with_blocked(spec.players, spec.board, spec.anti, blocked).expect("rules");
    let mut position = Position::new(rules.clone());
    let initial_rows = position.rows();
    let mut rng = Rng::new(spec.seed);
    let mut moves = Vec::new();
    let mut faults = Vec::new();
    loop {
        let ply = position.ply();
        for &(seat, at, kind) in &spec.faults {
            if at == ply {
                // Any seat may fault at any ply, as with the referee: one that writes unasked or
                // dies between its turns is disqualified while another seat is to move.
                assert!(position.remove_seat(seat), "fault of seat {seat} at {ply}");
                faults.push(FaultRecord {
                    seat,
                    kind,
                    ply,
                    detail: format!("test fault of seat {seat}"),
                    text: None,
                    stderr_tail: String::new(),
                });
            }
        }
        // As the referee does: the game ends when the board is finished or one player is left.
        if position.is_over() || position.in_game().iter().filter(|&&p| p).count() <= 1 {
            break;
        }
        let (legal, _) = position.legal_moves();
        let square = legal[rng.below(legal.len() as u64) as usize];
        let played = position.play(square).expect("legal move");
        moves.push(MoveRecord {
            ply,
            seat: played.seat,
            square,
            kind: played.kind,
            flips: played.flips,
            ms: (rng.below(5000) as f64) / 100.0,
        });
    }
    let scores = position.scores();
    let names = ["greedy", "random", "edge-lover", "mybot"];
    let mut record = GameRecord {
        format: FORMAT.into(),
        version: VERSION,
        game: format!("20261129-113000-{:04}", spec.seed),
        started: "2026-11-29T11:30:00Z".into(),
        duration_ms: 1234,
        rules,
        seed: Some(spec.seed),
        seats: (0..spec.players as usize)
            .map(|seat| SeatRecord {
                seat,
                colour: Colour::of_seat(seat),
                name: names[seat].into(),
                command: vec![format!("builtin:{}", names[seat])],
                ready: None,
                restarted: false,
            })
            .collect(),
        initial_rows,
        moves,
        faults,
        final_rows: position.rows(),
        scores,
        // Worked out below by the reference, not by the functions `replay --verify` checks with.
        result: Outcome::Draw,
        ranking: Vec::new(),
        opening: 0,
        schedule: None,
    };
    let end = crate::reference::plain_end(&record);
    assert!(end.ended);
    assert_eq!(end.rows, record.final_rows);
    assert_eq!(end.scores, record.scores);
    record.result = match end.winner {
        Some(winner) => Outcome::Win { winner },
        None => Outcome::Draw,
    };
    record.ranking = end.ranking;
    record
}

/// The board rows after `ply` moves of a record, computed by the engine (not by replay).
pub fn rows_at(rec: &GameRecord, ply: usize) -> Vec<String> {
    let mut position = Position::new(rec.rules.clone());
    for m in &rec.moves[..ply] {
        let ply = position.ply();
        for f in rec.faults.iter().filter(|f| f.ply == ply) {
            position.remove_seat(f.seat);
        }
        position.play(m.square).expect("the record is legal");
    }
    position.rows()
}

/// A mixed set of games: every board shape, 3 and 4 players, blocked squares, Anti-Reversi and
/// faults.
pub fn sample_games() -> Vec<GameRecord> {
    let mut specs = vec![
        Spec::new(4, BoardKind::Eight, 1),
        Spec::new(3, BoardKind::Octagon, 2),
        Spec::new(4, BoardKind::Ten, 3),
    ];
    let mut s = Spec::new(3, BoardKind::Eight, 4);
    s.blocked = "c3,f6,a8";
    s.anti = true;
    specs.push(s);
    let mut s = Spec::new(4, BoardKind::Octagon, 5);
    s.blocked = "c3,h8";
    s.faults = vec![(1, 5, FaultKind::Timeout), (3, 21, FaultKind::Illegal)];
    specs.push(s);
    specs.iter().map(game).collect()
}

/// One JSON line per record.
pub fn to_lines(records: &[GameRecord]) -> String {
    records
        .iter()
        .map(|r| serde_json::to_string(r).expect("record serializes") + "\n")
        .collect()
}

/// Writes records as a JSON Lines file.
pub fn write(path: &Path, records: &[GameRecord]) {
    std::fs::write(path, to_lines(records)).expect("write records");
}

/// Real records: `multiversi match` with built-in bots on every board shape, one game with a bot
/// that crashes at the start (`false`), appended to `path`; returns the records read back.
pub fn real_games(path: &Path) -> Vec<GameRecord> {
    let runs: [&[&str]; 3] = [
        &[
            "--seed",
            "7",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
            "builtin:greedy",
        ],
        &[
            "--seed",
            "8",
            "--board",
            "octagon",
            "--blocked-random",
            "4",
            "builtin:random",
            "builtin:greedy",
            "builtin:random",
        ],
        &[
            "--seed",
            "9",
            "--board",
            "10x10",
            "--anti",
            "builtin:random",
            "builtin:greedy",
            "false",
            "builtin:random",
        ],
    ];
    for args in runs {
        super::multiversi("match")
            // `false` never answers start; its game is still wanted in the records.
            .arg("--keep-going")
            .record(path)
            .args(args)
            .ok();
    }
    std::fs::read_to_string(path)
        .expect("records written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record line"))
        .collect()
}
