//! The test's state from records: units, the complete prefix, twins, duplicates, the decision,
//! and the field results.

use super::*;
use crate::record::{GameRecord, MoveRecord, ScheduleRef, SeatRecord, FORMAT, VERSION};
use crate::rng::Rng;
use crate::rules::{BoardKind, Colour, MoveKind, Outcome, Rules, Seat, Square};

const RUN: &str = "sprt-test";

fn setup(games_per_unit: u32) -> Setup {
    Setup {
        run: RUN.into(),
        candidate: "new".into(),
        baseline: "old".into(),
        games_per_unit,
        hypotheses: Hypotheses::new(0.0, 10.0, 0.05, 0.05).unwrap(),
    }
}

/// A game of `unit` in `seating`, with these bots in seat order and this ranking (groups of
/// seats, best first), opened with one move at d3.
fn game(unit: u64, seating: u32, bots: &[&str], ranking: &[&[Seat]]) -> GameRecord {
    let colours = [Colour::Black, Colour::White, Colour::Red, Colour::Green];
    GameRecord {
        format: FORMAT.into(),
        version: VERSION,
        game: format!("{RUN}-{unit}-{seating}"),
        started: "2026-11-29T00:00:00Z".into(),
        duration_ms: 0,
        rules: Rules::new(bots.len() as u32, BoardKind::Eight, false).unwrap(),
        seed: Some(unit),
        seats: bots
            .iter()
            .enumerate()
            .map(|(i, name)| SeatRecord {
                seat: i,
                colour: colours[i],
                name: name.to_string(),
                command: vec![format!("./{name}")],
                ready: None,
                restarted: false,
            })
            .collect(),
        initial_rows: vec!["........".into()],
        moves: vec![MoveRecord {
            ply: 0,
            seat: 0,
            square: Square::new(3, 2),
            kind: MoveKind::Flipping,
            flips: vec![],
            ms: 0.0,
        }],
        faults: vec![],
        final_rows: vec![],
        scores: vec![0; bots.len()],
        result: Outcome::Win {
            winner: ranking[0][0],
        },
        ranking: ranking.iter().map(|g| g.to_vec()).collect(),
        opening: 1,
        schedule: Some(ScheduleRef {
            run: RUN.into(),
            index: unit * 24 + seating as u64,
            deal: unit,
            seating,
        }),
    }
}

/// The twin of a game: "new" and "old" exchanged in the seats, seating + 1, and the ranking
/// given (by seat).
fn twin_of(first: &GameRecord, ranking: &[&[Seat]]) -> GameRecord {
    let schedule = first.schedule.as_ref().unwrap();
    let bots: Vec<&str> = first
        .seats
        .iter()
        .map(|s| match s.name.as_str() {
            "new" => "old",
            "old" => "new",
            other => other,
        })
        .collect();
    game(schedule.deal, schedule.seating + 1, &bots, ranking)
}

/// A twin pair of unit `unit` at a 3-player table, new in seat 0, old in seat 1, "field" in seat
/// 2, in which the candidate scores `half_points` (0 to 4) over the two games.
fn pair(unit: u64, half_points: u32) -> [GameRecord; 2] {
    // Per game, by the candidate's half points: the ranking of (seat of new, seat of old, field).
    let ranking = |h: u32, new: Seat, old: Seat| -> Vec<Vec<Seat>> {
        match h {
            2 => vec![vec![new], vec![2], vec![old]],
            1 => vec![vec![new, old], vec![2]],
            _ => vec![vec![2], vec![old], vec![new]],
        }
    };
    let (a, b) = match half_points {
        0 => (0, 0),
        1 => (1, 0),
        2 => (2, 0),
        3 => (2, 1),
        _ => (2, 2),
    };
    let first_ranking = ranking(a, 0, 1);
    let first = game(
        unit,
        0,
        &["new", "old", "field"],
        &first_ranking
            .iter()
            .map(|g| g.as_slice())
            .collect::<Vec<_>>(),
    );
    // In the twin, new sits in seat 1 and old in seat 0.
    let second_ranking = ranking(b, 1, 0);
    let second = twin_of(
        &first,
        &second_ranking
            .iter()
            .map(|g| g.as_slice())
            .collect::<Vec<_>>(),
    );
    [first, second]
}

#[test]
fn a_twin_pair_is_a_pentanomial_unit() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let [a, b] = pair(0, 3);
    assert_eq!(state.add(&a), Ok(Added::New));
    assert_eq!(
        state.report().counts.units(),
        0,
        "half a pair counts for nothing"
    );
    assert!(state.recorded(0, 0) && !state.recorded(0, 1));
    assert_eq!(state.add(&b), Ok(Added::New));
    let report = state.report();
    assert_eq!(report.counts.counts(), &[0, 0, 0, 1, 0]);
    assert_eq!(report.counts.games(), 2);
    assert_eq!(report.score, Some(0.75));
    assert_eq!(state.next_unit(), 1);
    assert!(state.recorded(0, 1));
    // The LLR is the counts' own.
    let (s0, s1) = setup(2).hypotheses.scores();
    assert_eq!(report.llr, report.counts.llr(s0, s1));
    assert!(report.llr > 0.0);
}

#[test]
fn only_the_complete_prefix_counts() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let pairs: Vec<[GameRecord; 2]> = (0..4).map(|u| pair(u, (u % 5) as u32)).collect();
    // Units 1 to 3 complete, unit 0 half: nothing counts yet.
    state.add(&pairs[0][0]).unwrap();
    for p in &pairs[1..] {
        state.add(&p[0]).unwrap();
        state.add(&p[1]).unwrap();
    }
    let waiting = state.report();
    assert_eq!(waiting.counts.units(), 0);
    assert_eq!(waiting.llr, 0.0);
    assert_eq!((waiting.waiting_units, waiting.waiting_games), (4, 7));
    assert!(waiting.text().contains("waiting: 7 game(s) of 4 pairs"));
    // The missing game completes unit 0 and every unit after it.
    state.add(&pairs[0][1]).unwrap();
    let report = state.report();
    assert_eq!(report.counts.counts(), &[1, 1, 1, 1, 0]);
    assert_eq!((report.waiting_units, report.waiting_games), (0, 0));
    assert_eq!(state.next_unit(), 4);
}

#[test]
fn the_state_is_the_same_whatever_the_order_of_the_records() {
    let records: Vec<GameRecord> = (0..40).flat_map(|u| pair(u, (u * 7 % 5) as u32)).collect();
    let (in_order, errors) = SprtState::from_records(setup(2), &records).unwrap();
    assert!(errors.is_empty());
    let expected = in_order.report();
    assert_eq!(expected.counts.units(), 40);
    let mut rng = Rng::new(17);
    for _ in 0..20 {
        let mut shuffled: Vec<&GameRecord> = records.iter().collect();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let (state, errors) = SprtState::from_records(setup(2), shuffled).unwrap();
        assert!(errors.is_empty());
        assert_eq!(state.report(), expected);
    }
    // A run killed half way and resumed: the records written so far, then the rest, one by one.
    let (mut resumed, _) = SprtState::from_records(setup(2), &records[..37]).unwrap();
    for r in &records[37..] {
        resumed.add(r).unwrap();
    }
    assert_eq!(resumed.report(), expected);
}

#[test]
fn a_game_read_twice_counts_once_and_a_second_game_in_its_place_is_refused() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let [a, b] = pair(0, 2);
    state.add(&a).unwrap();
    assert_eq!(state.add(&a), Ok(Added::Duplicate));
    let mut impostor = a.clone();
    impostor.game = "another".into();
    let e = state.add(&impostor).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "game another and game {0} are both seating 0 of unit 0: the first read, game {0}, \
             counts",
            a.game
        )
    );
    // The same id with other contents (another result) is no copy of the game: it is refused,
    // and said to be a second record of the game, of which the first counts.
    let mut edited = a.clone();
    edited.ranking.reverse();
    let e = state.add(&edited).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "game {} is recorded twice with different contents (seating 0 of unit 0): the \
             first read counts",
            a.game
        )
    );
    state.add(&b).unwrap();
    let mut edited_b = b.clone();
    edited_b.duration_ms += 1;
    assert!(matches!(
        state.add(&edited_b),
        Err(RecordError::Conflict {
            unit: 0,
            seating: 1,
            ..
        })
    ));
    // Counted units still know their games.
    assert_eq!(state.add(&b), Ok(Added::Duplicate));
    let mut late = b.clone();
    late.game = "late".into();
    assert!(matches!(
        state.add(&late),
        Err(RecordError::Conflict {
            unit: 0,
            seating: 1,
            ..
        })
    ));
    assert_eq!(state.report().counts.units(), 1);
}

#[test]
fn games_that_are_not_twins_are_refused() {
    let [a, b] = pair(0, 2);
    let check = |second: GameRecord, why: &str| {
        let mut state = SprtState::new(setup(2)).unwrap();
        state.add(&a).unwrap();
        match state.add(&second) {
            Err(RecordError::NotTwins { why: w, .. }) => assert_eq!(w, why),
            other => panic!("{other:?}"),
        }
        assert_eq!(state.report().counts.units(), 0);
    };
    // The candidate and the baseline in the same seats in both games.
    let mut same_seats = a.clone();
    same_seats.schedule.as_mut().unwrap().seating = 1;
    same_seats.game = "same".into();
    check(
        same_seats,
        "the candidate and the baseline are not in exchanged seats",
    );
    // Another bot in the third seat.
    let mut other_field = b.clone();
    other_field.seats[2].name = "stranger".into();
    check(other_field, "the other seats are not held by the same bots");
    // Another opening, another board, other blocked squares.
    let mut opening = b.clone();
    opening.moves[0].square = Square::new(2, 3);
    check(opening, "the openings differ");
    let mut rows = b.clone();
    rows.initial_rows = vec!["#.......".into()];
    check(rows, "the starting boards differ");
    let mut rules = b.clone();
    rules.rules.blocked = vec![Square::new(0, 0)];
    check(rules, "the rules or blocked squares differ");
    // The same twin, unchanged, is fine.
    let mut state = SprtState::new(setup(2)).unwrap();
    state.add(&a).unwrap();
    assert_eq!(state.add(&b), Ok(Added::New));
}

#[test]
fn records_that_do_not_belong_are_refused_with_a_reason() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let [a, _] = pair(0, 2);
    let mut no_schedule = a.clone();
    no_schedule.schedule = None;
    assert_eq!(
        state.add(&no_schedule).unwrap_err().to_string(),
        format!(
            "game {} has no schedule: an SPRT counts games by their place in its schedule",
            a.game
        )
    );
    let mut other_run = a.clone();
    other_run.schedule.as_mut().unwrap().run = "league".into();
    assert_eq!(
        state.add(&other_run).unwrap_err().to_string(),
        format!("game {} belongs to run 'league', not to this test", a.game)
    );
    let mut absent = a.clone();
    absent.seats[1].name = "older".into();
    assert_eq!(
        state.add(&absent).unwrap_err().to_string(),
        format!("game {} has no seat for 'old'", a.game)
    );
    let mut twice = a.clone();
    twice.seats[2].name = "new".into();
    assert!(matches!(
        state.add(&twice),
        Err(RecordError::SeatedTwice { .. })
    ));
    let mut far = a.clone();
    far.schedule.as_mut().unwrap().seating = 2;
    assert_eq!(
        state.add(&far).unwrap_err().to_string(),
        format!(
            "game {} is seating 2, but a unit has seatings 0 to 1",
            a.game
        )
    );
    let mut ranking = a.clone();
    ranking.ranking = vec![vec![0], vec![0, 1]];
    assert_eq!(
        state.add(&ranking).unwrap_err().to_string(),
        format!(
            "game {}: its ranking does not list every seat exactly once",
            a.game
        )
    );
    let mut seats = a.clone();
    seats.seats[2].seat = 7;
    assert!(matches!(state.add(&seats), Err(RecordError::Seats { .. })));
    assert_eq!(state.report().waiting_games, 0, "nothing was taken in");
    assert_eq!(state.add(&a), Ok(Added::New));
}

#[test]
fn setups_that_cannot_work_are_refused() {
    let mut same = setup(2);
    same.baseline = "new".into();
    assert_eq!(
        SprtState::new(same).unwrap_err(),
        SetupError::SameName("new".into())
    );
    for g in [0, 3, 26] {
        assert_eq!(
            SprtState::new(setup(g)).unwrap_err(),
            SetupError::GamesPerUnit(g)
        );
    }
    assert_eq!(
        SetupError::GamesPerUnit(3).to_string(),
        "3 games per unit: a unit is 1 to 12 twin pairs, an even number of games from 2 to 24"
    );
    assert!(SprtState::new(setup(24)).is_ok());
}

#[test]
fn the_first_crossing_decides_and_later_units_change_nothing() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let bounds = setup(2).hypotheses.bounds();
    let mut unit = 0;
    // The candidate wins three games of four: H1 (10 Elo) is accepted in the end.
    while state.verdict() == Verdict::Continue {
        for r in pair(unit, [4, 2, 3, 3][unit as usize % 4]) {
            state.add(&r).unwrap();
        }
        unit += 1;
        assert!(unit < 1000, "no decision");
    }
    assert_eq!(state.verdict(), Verdict::AcceptH1);
    let decided = state.report();
    assert!(decided.llr >= bounds.upper);
    // The unit before the decision was still undecided: a fresh state of one unit fewer.
    let records: Vec<GameRecord> = (0..unit - 1)
        .flat_map(|u| pair(u, [4, 2, 3, 3][u as usize % 4]))
        .collect();
    let (before, _) = SprtState::from_records(setup(2), &records).unwrap();
    assert_eq!(before.verdict(), Verdict::Continue);
    // Games in progress at the decision: all losses for the candidate, counted apart.
    for u in unit..unit + 5 {
        for r in pair(u, 0) {
            state.add(&r).unwrap();
        }
    }
    let after = state.report();
    assert_eq!(after.verdict, Verdict::AcceptH1);
    assert_eq!(after.llr, decided.llr);
    assert_eq!(after.counts, decided.counts);
    assert_eq!(after.after_decision, 5);
    assert!(after
        .text()
        .contains("after the decision, not counted: 5 complete pairs\n"));
    assert!(after.text().contains("H1 accepted"));
    // A game whose twin was never played once the test had decided: it will never count, and
    // the report says so rather than that it waits.
    let [lone, _] = pair(unit + 6, 4);
    state.add(&lone).unwrap();
    let text = state.report().text();
    assert!(
        text.contains(
            "after the decision, not counted: 5 complete pairs, and 1 game(s) of 1 pair left \
             incomplete or behind an incomplete one\n"
        ),
        "{text}"
    );
    assert!(!text.contains("not counted yet"), "{text}");
}

#[test]
fn the_losing_side_is_accepted_as_h0() {
    let mut state = SprtState::new(setup(2)).unwrap();
    let mut unit = 0;
    while state.verdict() == Verdict::Continue && unit < 1000 {
        for r in pair(unit, [2, 1, 2, 0][unit as usize % 4]) {
            state.add(&r).unwrap();
        }
        unit += 1;
    }
    assert_eq!(state.verdict(), Verdict::AcceptH0);
    let report = state.report();
    assert!(report.elo.unwrap().elo < 0.0);
    assert!(report.los.unwrap() < 0.05);
}

#[test]
fn field_results_by_hand() {
    // Unit 0 at a 4-player table: new, old, f1, f2 in seats 0-3; the twin has old in seat 0.
    // Game 1: new first, f1 and old share second, f2 last.
    // Game 2 (old in 0, new in 1): f2 first, new second, old third, f1 last.
    let g1 = game(0, 0, &["new", "old", "f1", "f2"], &[&[0], &[1, 2], &[3]]);
    let g2 = twin_of(&g1, &[&[3], &[1], &[0], &[2]]);
    let (state, errors) = SprtState::from_records(setup(2), [&g1, &g2]).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let r = state.report();
    // Against old: 1 and 1 → pair score 1.
    assert_eq!(r.counts.counts(), &[0, 0, 0, 0, 1]);
    let new = &r.candidate_field;
    assert_eq!(new.games, 2);
    // Places 1 and 2; one win in two games.
    assert_eq!(new.mean_place, Some(1.5));
    assert_eq!(new.wins, Some(0.5));
    // Against f1: above, above; against f2: above, below → 3 of 4.
    assert_eq!(new.score, Some(0.75));
    assert_eq!(
        new.opponents,
        vec![
            Opponent {
                name: "f1".into(),
                meetings: 2,
                score: 1.0
            },
            Opponent {
                name: "f2".into(),
                meetings: 2,
                score: 0.5
            },
        ]
    );
    let old = &r.baseline_field;
    // Places 2.5 (shared second and third) and 3; no win.
    assert_eq!(old.mean_place, Some(2.75));
    assert_eq!(old.wins, Some(0.0));
    // Against f1: shared, above; against f2: above, below → 2.5 of 4.
    assert_eq!(old.score, Some(0.625));
    let text = r.text();
    assert!(text.contains("against the field: new 75.0% (wins 50.0%, mean place 1.50), old 62.5% (wins 0.0%, mean place 2.75)"), "{text}");
    assert!(text.contains("2 games in 1 pair; pairs scoring 0, ¼, ½, ¾, 1: 0, 0, 0, 0, 1"));
}

#[test]
fn a_deal_of_two_pairs_is_one_unit() {
    // Units of 4 games: seatings 0/1 and 2/3 are twins; all four share the board and opening.
    let mut state = SprtState::new(setup(4)).unwrap();
    let g0 = game(0, 0, &["new", "old", "f"], &[&[0], &[1], &[2]]);
    let g1 = twin_of(&g0, &[&[0], &[1], &[2]]);
    let g2 = game(0, 2, &["f", "new", "old"], &[&[1, 2], &[0]]);
    let g3 = twin_of(&g2, &[&[2], &[0], &[1]]);
    for g in [&g0, &g1, &g2] {
        state.add(g).unwrap();
    }
    assert_eq!(state.report().counts.units(), 0);
    // A game of the second pair on another opening is refused: the deal shares one.
    let mut stray = g3.clone();
    stray.moves[0].square = Square::new(5, 5);
    assert!(matches!(
        state.add(&stray),
        Err(RecordError::NotTwins { .. })
    ));
    state.add(&g3).unwrap();
    let r = state.report();
    // Half points: 2, 0, 1, 2 → 5 of 8.
    let mut expected = vec![0; 9];
    expected[5] = 1;
    assert_eq!(r.counts.counts(), expected.as_slice());
    assert_eq!(r.counts.games(), 4);
    assert!(r
        .text()
        .contains("4 games in 1 unit; units scoring 0/8, 1/8"));
}

#[test]
fn a_disqualified_candidate_loses_to_the_baseline() {
    // Disqualified seats share the last place in the ranking: new (seat 0) faulted, old second.
    let g1 = game(0, 0, &["new", "old", "field"], &[&[2], &[1], &[0]]);
    // Both disqualified in the twin: they share the last place, half a point.
    let g2 = twin_of(&g1, &[&[2], &[0, 1]]);
    let (state, errors) = SprtState::from_records(setup(2), [&g1, &g2]).unwrap();
    assert!(errors.is_empty());
    assert_eq!(state.report().counts.counts(), &[0, 1, 0, 0, 0]);
}

/// The schedule `pair` draws from: unit u at indices 24u and 24u + 1, seeded with u, "new",
/// "old" and "field" in seating 0 and the two tested bots exchanged in seating 1.
struct Pairs;

impl crate::record::Schedule for Pairs {
    fn at(&self, index: u64) -> Option<crate::record::Scheduled> {
        let (unit, seating) = (index / 24, (index % 24) as u32);
        let names = match seating {
            0 => ["new", "old", "field"],
            1 => ["old", "new", "field"],
            _ => return None,
        };
        Some(crate::record::Scheduled {
            deal: unit,
            seating,
            seed: Some(unit),
            names: names.iter().map(|n| n.to_string()).collect(),
        })
    }
}

#[test]
fn a_game_that_is_not_the_schedules_at_its_index_is_refused_as_another_tests() {
    let mut state = SprtState::new(setup(2))
        .unwrap()
        .with_schedule(std::sync::Arc::new(Pairs));
    let [a, b] = pair(0, 4);
    // Another test's game under the same name: another seed, or other bots.
    let mut seeded = a.clone();
    seeded.seed = Some(99);
    match state.add(&seeded) {
        Err(RecordError::Foreign { why, .. }) => {
            assert_eq!(why, "its seed is 99, the schedule's 0")
        }
        other => panic!("{other:?}"),
    }
    let mut field = b.clone();
    field.seats[2].name = "someone".into();
    assert!(matches!(
        state.add(&field),
        Err(RecordError::Foreign { .. })
    ));
    // Neither holds a place: the test's own games are counted as if they had not been read.
    assert_eq!(state.add(&a), Ok(Added::New));
    assert_eq!(state.add(&b), Ok(Added::New));
    assert_eq!(state.report().counts.units(), 1);
    // Unchecked, the same record is taken in (the pure function of records has no schedule).
    let mut unchecked = SprtState::new(setup(2)).unwrap();
    assert_eq!(unchecked.add(&seeded), Ok(Added::New));
}

/// Without an Elo estimate the report says why: too few pairs, or pairs that all scored alike
/// (no finite difference fits a candidate that lost or won every pair).
#[test]
fn the_report_says_why_it_has_no_elo_estimate() {
    let report_after = |half_points: &[u32]| {
        let mut state = SprtState::new(setup(2)).unwrap();
        for (unit, &h) in (0u64..).zip(half_points) {
            for r in pair(unit, h) {
                state.add(&r).unwrap();
            }
        }
        state.report()
    };
    let cases: [(&[u32], &str); 6] = [
        (&[], "no Elo estimate yet (it needs 2 pairs)"),
        (&[4], "no Elo estimate yet (it needs 2 pairs)"),
        (
            &[0, 0, 0],
            "no Elo estimate: every pair scored 0 for the candidate",
        ),
        (
            &[4, 4, 4],
            "no Elo estimate: every pair scored 1 for the candidate",
        ),
        (
            &[2, 2, 2],
            "no Elo estimate (every pair so far has scored the same)",
        ),
        (&[2, 3], "+"),
    ];
    for (half_points, words) in cases {
        let report = report_after(half_points);
        let text = report.text();
        assert!(
            text.contains(&format!("new - old, from the pairs: {words}")),
            "{half_points:?}: {text}"
        );
        assert_eq!(
            report.elo.is_some(),
            half_points == [2, 3],
            "{half_points:?}"
        );
    }
}
