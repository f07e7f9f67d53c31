//! One game between bot processes: the start handshake, the turns against absolute deadlines,
//! the fault policy, the end message, and the game's record.
//!
//! The fault policy (documented in `protocol/PROTOCOL.md`): a bot that times out, crashes, sends
//! a malformed line or an illegal move is disqualified on the spot. Its process group is killed,
//! its turns are skipped from then on, its discs stay on the board, it cannot win and ranks below
//! every other player. The game goes on among the rest; when one player is left, it wins.

use crate::connection::{
    judge_move, judge_ready, wait_among, Connection, Fault, STDERR_TAIL_CHARS,
};
use crate::process::{interrupted, Received};
use crate::protocol::{PlayerInfo, TimeControl, ToBot, TurnView, WireFault};
use crate::record::{
    FaultKind, FaultRecord, GameRecord, MoveRecord, ScheduleRef, SeatRecord, FORMAT, VERSION,
};
use crate::rules::{Colour, Outcome, Position, Rules, Seat, Square};
use std::time::{Duration, Instant};

/// How long a bot kept from the last game, whose output ended before its next `start` was
/// answered, is given to exit, so that its log can say how it ended: most exit within a
/// millisecond of closing their output, and one that runs on is stopped after this. As long as
/// a crash fault's description waits for the exit status.
const EXIT_WORDS_WAIT: Duration = Duration::from_millis(200);

/// The longest the referee gives bots kept from the last game to read its `end` before it sends
/// the next `start`: then a bot that ends having read some of its start is known to have ended
/// in the new game (see `handshake`). A bot that reads its input as it comes takes microseconds.
const CATCH_UP: Duration = Duration::from_millis(2);

/// What the match runner wants to see while a game runs (`--show`, `--events`).
pub trait Observer {
    fn game_started(&mut self, _game: &str, _seats: &[SeatRecord], _position: &Position) {}
    fn moved(&mut self, _game: &str, _m: &MoveRecord, _position: &Position) {}
    /// `ms`: from the message the bot failed to answer (start or turn) to the fault being
    /// noticed; for a timeout, the limit plus the referee's lateness in flagging it.
    fn faulted(&mut self, _game: &str, _fault: &FaultRecord, _ms: Option<f64>) {}
}

/// Everything one game needs besides its players.
pub struct GameSetup {
    pub game: String,
    pub rules: Rules,
    pub seed: Option<u64>,
    pub time: TimeControl,
    /// Moves the referee plays itself after `start` and before the first `turn` (a league's
    /// random opening; see `random_opening`). Bots see them in their first turn's `moves`.
    pub opening: Vec<Square>,
    /// Where the game sits in its schedule, copied into the record.
    pub place: Option<ScheduleRef>,
}

/// `plies` random legal moves from the start position of `rules`, drawn from `seed`: a league
/// deal's opening, the same in every seating of the deal. Stops early if the game would end.
pub fn random_opening(rules: &Rules, plies: u32, seed: u64) -> Vec<Square> {
    let mut rng = crate::rng::Rng::new(seed);
    let mut position = Position::new(rules.clone());
    let mut moves = Vec::new();
    for _ in 0..plies {
        let (legal, _) = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        let square = legal[rng.below(legal.len() as u64) as usize];
        if position.play(square).is_err() || position.is_over() {
            break;
        }
        moves.push(square);
    }
    moves
}

/// Milliseconds rounded to the microsecond: how every time a game reports is written.
fn to_the_microsecond(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// The run was interrupted by a signal; the game is not recorded.
#[derive(Debug)]
pub struct Interrupted;

/// The game state the referee keeps besides the position.
struct Game<'a> {
    setup: &'a GameSetup,
    players: &'a mut [Connection],
    /// `order[seat]` is the index in `players` of the bot in that seat.
    order: &'a [usize],
    position: Position,
    moves: Vec<MoveRecord>,
    faults: Vec<FaultRecord>,
    out: Vec<bool>,
    observer: &'a mut dyn Observer,
    /// When the message now awaiting an answer was sent (for the fault event's `ms`).
    awaiting_since: Option<Instant>,
    /// The indices in `players` of the bots `poll_bots` waits for, kept for the whole game.
    polled: Vec<usize>,
}

/// Plays one game. `order[seat]` names the player in each seat. Bots that are not running are
/// started first; a bot that faults is killed (and restarted by the next game's call).
pub fn play_game(
    setup: &GameSetup,
    players: &mut [Connection],
    order: &[usize],
    observer: &mut dyn Observer,
) -> Result<GameRecord, Interrupted> {
    let started_wall = std::time::SystemTime::now();
    let started = Instant::now();
    let n = setup.rules.players as usize;
    let position = Position::new(setup.rules.clone());
    let initial_rows = position.rows();
    let mut game = Game {
        setup,
        players,
        order,
        position,
        moves: Vec::new(),
        faults: Vec::new(),
        out: vec![false; n],
        observer,
        awaiting_since: None,
        polled: Vec::with_capacity(n),
    };
    let mut seats: Vec<SeatRecord> = (0..n)
        .map(|seat| {
            let spec = &game.players[order[seat]].spec;
            SeatRecord {
                seat,
                colour: Colour::of_seat(seat),
                name: spec.name.clone(),
                command: spec.command.clone(),
                ready: None,
                restarted: false,
            }
        })
        .collect();

    game.handshake(&mut seats)?;
    game.observer
        .game_started(&setup.game, &seats, &game.position);
    let opening = game.play_opening();
    game.play_turns()?;

    let scores = game.position.scores();
    let eligible: Vec<bool> = game.out.iter().map(|&o| !o).collect();
    let result = Outcome::decide(&scores, setup.rules.anti, &eligible);
    let ranking = crate::rules::ranking(&scores, setup.rules.anti, &eligible);
    let final_rows = game.position.rows();
    let end = ToBot::End {
        game: setup.game.clone(),
        result,
        scores: scores.clone(),
        rows: final_rows.clone(),
        faults: game
            .faults
            .iter()
            .map(|f| WireFault {
                seat: f.seat,
                kind: f.kind,
                ply: f.ply,
            })
            .collect(),
    }
    .to_line();
    for seat in 0..n {
        game.bot(seat).send(&end);
    }
    Ok(GameRecord {
        format: FORMAT.into(),
        version: VERSION,
        game: setup.game.clone(),
        started: crate::record::rfc3339(started_wall),
        duration_ms: started.elapsed().as_millis() as u64,
        rules: setup.rules.clone(),
        seed: setup.seed,
        seats,
        initial_rows,
        moves: game.moves,
        faults: game.faults,
        final_rows,
        scores,
        result,
        ranking,
        opening,
        schedule: setup.place.clone(),
    })
}

impl Game<'_> {
    /// Plays the setup's opening moves for the seats to move, taking no time off any clock;
    /// returns how many were played.
    fn play_opening(&mut self) -> u32 {
        for &square in &self.setup.opening {
            let ply = self.position.ply();
            let seat = self.position.to_move();
            // An opening comes from `random_opening` on these rules, so every move is legal; one
            // that is not ends the opening rather than the game.
            let Ok(played) = self.position.play(square) else {
                break;
            };
            let record = MoveRecord {
                ply,
                seat,
                square,
                kind: played.kind,
                flips: played.flips,
                ms: 0.0,
            };
            self.observer
                .moved(&self.setup.game, &record, &self.position);
            self.moves.push(record);
        }
        self.moves.len() as u32
    }

    fn bot(&mut self, seat: Seat) -> &mut Connection {
        &mut self.players[self.order[seat]]
    }

    /// Starts missing bots, sends every seat its `start` and collects the `ready` answers against
    /// one shared deadline, so that slow starters start in parallel.
    fn handshake(&mut self, seats: &mut [SeatRecord]) -> Result<(), Interrupted> {
        let setup = self.setup;
        let n = seats.len();
        let players: Vec<PlayerInfo> = seats
            .iter()
            .map(|s| PlayerInfo {
                seat: s.seat,
                colour: s.colour,
                name: s.name.clone(),
            })
            .collect();
        let rows = self.position.rows();
        // Faults found before the start went out.
        let mut start_faults: Vec<Option<Fault>> = vec![None; n];
        let mut starts: Vec<Vec<u8>> = Vec::with_capacity(n);
        // Whether the seat's bot was kept alive from an earlier game (not started for this one).
        let mut kept = vec![false; n];
        // Whether a kept bot had read everything it was sent when its `start` went out: then
        // whether it read the start is known when it ends.
        let mut caught_up = vec![false; n];
        self.let_kept_bots_catch_up();
        for (seat, fault) in start_faults.iter_mut().enumerate() {
            starts.push(
                ToBot::Start {
                    protocol: crate::protocol::PROTOCOL_VERSION,
                    game: setup.game.clone(),
                    seat,
                    colour: Colour::of_seat(seat),
                    players: players.clone(),
                    rules: setup.rules.clone(),
                    size: setup.rules.side(),
                    rows: rows.clone(),
                    time: setup.time,
                }
                .to_line(),
            );
            let bot = self.bot(seat);
            // A bot kept from the last game must have said nothing since: it was owed nothing.
            if let Some(unasked) = bot.between_games() {
                *fault = Some(unasked);
                continue;
            }
            let running = bot.is_running();
            match bot.ensure_started(Some(&setup.game)) {
                // A bot started again here is a fresh process: if it ends in its start, that
                // is this game's fault, not another end between games.
                Ok(restarted) => {
                    kept[seat] = running && !restarted;
                    seats[seat].restarted = restarted;
                }
                Err(e) => {
                    *fault = Some(Fault::new(
                        FaultKind::Crash,
                        format!("could not be started: {e}"),
                        None,
                    ));
                    continue;
                }
            }
            caught_up[seat] = kept[seat] && bot.unread_input() == Some(0);
            bot.begin_game(&format!("game {} seat {seat}: start", setup.game));
            bot.send(&starts[seat]);
        }
        let sent = Instant::now();
        self.awaiting_since = Some(sent);
        let deadline = sent + Duration::from_millis(setup.time.startup_ms);
        let mut waiting: Vec<Seat> = Vec::new();
        for (seat, fault) in start_faults.into_iter().enumerate() {
            match fault {
                Some(fault) => self.disqualify(seat, fault),
                None => waiting.push(seat),
            }
        }
        // Wait for all answers at once, so that each arrival time is noted as it happens.
        while !waiting.is_empty() {
            if interrupted() {
                return Err(Interrupted);
            }
            let mut still = Vec::new();
            for seat in waiting {
                let bot = self.bot(seat);
                if !bot.is_running() {
                    continue;
                }
                if !bot.has_news() && Instant::now() < deadline {
                    still.push(seat);
                    continue;
                }
                let received = bot.receive(deadline);
                // A kept bot that had read all of the last game when its start went out, and
                // ended having read some of the start, ended in this game: it is judged, not
                // started again. (Where it had not caught up, it may have read `end` and the
                // start at once and ended on `end`, which is its right: the benefit of the
                // doubt goes to the bot.)
                let read_its_start = caught_up[seat]
                    && bot
                        .unread_input()
                        .is_some_and(|unread| unread < starts[seat].len());
                if matches!(received, Received::Eof | Received::Gone)
                    && kept[seat]
                    && !read_its_start
                    && !interrupted()
                {
                    // A bot kept alive that ended after the last game (a crash between games,
                    // or a bot that exits after `end`) is started afresh, within the same
                    // startup deadline, rather than faulted for a game it never began.
                    kept[seat] = false;
                    let how = bot.exit_words(EXIT_WORDS_WAIT);
                    bot.stop(&format!(
                        "ended between games{how}, before game {}: starting it again",
                        setup.game
                    ));
                    match bot.ensure_started(Some(&setup.game)) {
                        Ok(_) => {
                            seats[seat].restarted = true;
                            bot.begin_game(&format!("game {} seat {seat}: start", setup.game));
                            bot.send(&starts[seat]);
                            still.push(seat);
                        }
                        Err(e) => self.disqualify(
                            seat,
                            Fault::new(
                                FaultKind::Crash,
                                format!("could not be started: {e}"),
                                None,
                            ),
                        ),
                    }
                    continue;
                }
                let answer = bot
                    .judge_received(received, deadline, setup.time.startup_ms, "ready")
                    .and_then(|(line, _)| judge_ready(&line, &setup.game));
                match answer {
                    Ok(ready) => seats[seat].ready = Some(ready),
                    Err(fault) => self.disqualify(seat, fault),
                }
            }
            waiting = still;
            if !waiting.is_empty() {
                // Bots that have answered are watched meanwhile: they owe nothing now.
                self.wait_due(&waiting, deadline, false)?;
            }
        }
        Ok(())
    }

    /// Waits, up to `CATCH_UP`, while a running bot has not read all it was sent (the last
    /// game's `end`), yielding the CPU to it: on a CPU it shares with the referee it reads at
    /// once, and it had that work to do before the next game in any case.
    fn let_kept_bots_catch_up(&mut self) {
        let behind = |game: &mut Self| {
            (0..game.order.len()).any(|seat| {
                let bot = game.bot(seat);
                bot.unread_input().is_some_and(|unread| unread > 0) && bot.is_running()
            })
        };
        let until = Instant::now() + CATCH_UP;
        while behind(self) && Instant::now() < until && !interrupted() {
            std::thread::yield_now();
        }
    }

    fn in_game(&self) -> usize {
        self.out.iter().filter(|&&o| !o).count()
    }

    /// Waits up to `wait` until a bot of this game has output (or takes pending input), and
    /// reads and writes what it can for every one of them. `Duration::ZERO` only looks.
    fn poll_bots(&mut self, wait: Duration) {
        self.polled.clear();
        for (seat, &out) in self.out.iter().enumerate() {
            if !out {
                self.polled.push(self.order[seat]);
            }
        }
        // In the order of `players`, each bot once.
        self.polled.sort_unstable();
        self.polled.dedup();
        wait_among(self.players, &self.polled, wait);
    }

    /// Disqualifies every bot in the game, other than those in `due`, that has written a line,
    /// an over-long line, or ended its output: nobody asked it for anything.
    fn fault_unrequested(&mut self, due: &[Seat]) {
        for seat in 0..self.out.len() {
            if self.out[seat] || due.contains(&seat) {
                continue;
            }
            let Some(fault) = self.bot(seat).unasked() else {
                continue;
            };
            // The fault is not an answer to anything: no time since a message of its own.
            let awaiting = self.awaiting_since.take();
            self.disqualify(seat, fault);
            self.awaiting_since = awaiting;
        }
    }

    /// How many bots in the game, other than those in `due`, `fault_unrequested` would take out
    /// now: those with output nobody asked for, or whose output has ended.
    fn unrequested(&self, due: &[Seat]) -> usize {
        (0..self.out.len())
            .filter(|&seat| {
                !self.out[seat]
                    && !due.contains(&seat)
                    && self.players[self.order[seat]].has_unasked()
            })
            .count()
    }

    /// Looks at every bot's output without waiting and disqualifies those that wrote unasked.
    fn police(&mut self) {
        self.poll_bots(Duration::ZERO);
        self.fault_unrequested(&[]);
    }

    /// Waits until a seat in `due` has something to read (a line, an over-long line, the end of
    /// its output) or `deadline` passes, watching every other bot of the game meanwhile; then
    /// disqualifies those that wrote unasked or ended, at the ply of the moment. With
    /// `until_alone`, stops as well when at most one player would be left.
    ///
    /// Why the others are taken out only once the wait is over: taking a bot out can take the
    /// referee a few hundred milliseconds (a helper that may let go of its output, an exit
    /// status to wait for), while the due bots think on. Done inside the wait, their answers
    /// would sit unread meanwhile, and be timed by when the referee got back to them; done after
    /// it, their answers are read, and timed, as they come, and the deadline stays where it was
    /// set (PROTOCOL.md, "How time is measured").
    fn wait_due(
        &mut self,
        due: &[Seat],
        deadline: Instant,
        until_alone: bool,
    ) -> Result<(), Interrupted> {
        // An answer that is there already is taken without a `ppoll` first: it is what a bot
        // that answers at once has done by the time the referee looks (on one CPU, often).
        for &seat in due {
            self.bot(seat).read_now();
        }
        loop {
            if interrupted() {
                return Err(Interrupted);
            }
            let news = due
                .iter()
                .any(|&seat| self.players[self.order[seat]].has_news());
            if news || (until_alone && self.in_game() - self.unrequested(due) <= 1) {
                break;
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            self.poll_bots(deadline - now);
        }
        self.fault_unrequested(due);
        Ok(())
    }

    /// Plays turns until the board is finished or at most one player is left.
    fn play_turns(&mut self) -> Result<(), Interrupted> {
        let setup = self.setup;
        let n = self.out.len();
        let time = setup.time;
        let mut clocks: Vec<Option<f64>> = vec![time.clock_ms.map(|c| c as f64); n];
        let mut seen = vec![0usize; n];
        let mut last_move_ms: Vec<Option<f64>> = vec![None; n];
        let mut turn: Vec<u8> = Vec::with_capacity(1024);
        // The game id is the referee's own text, but escaped properly all the same, once.
        let game_json = crate::protocol::json_string(&setup.game);
        // What a turn message says, kept for the whole game rather than built every turn.
        let mut cells: Vec<u8> = Vec::new();
        let mut legal: Vec<Square> = Vec::new();
        let mut clocks_ms: Vec<Option<u64>> = Vec::with_capacity(n);
        let mut out: Vec<Seat> = Vec::with_capacity(n);
        loop {
            if interrupted() {
                return Err(Interrupted);
            }
            self.awaiting_since = None;
            // Once the game is over nothing more goes out in it but `end`, and no fault can
            // change its result: what a bot writes now is judged as written between games, at
            // the start of its next game if it is kept for one (`between_games`).
            if self.position.is_over() || self.in_game() <= 1 {
                break;
            }
            // Before anything more goes out: whatever a bot wrote since is output nobody asked
            // for (a second answer, a move before its turn), and so is a bot's end.
            self.police();
            if self.in_game() <= 1 {
                break;
            }
            let seat = self.position.to_move();
            if self.out[seat] {
                // Cannot happen: the position skips removed seats. Guard against a loop anyway.
                break;
            }
            let kind = self.position.legal_moves_into(&mut legal);
            let time_ms = match clocks[seat] {
                Some(left) => time.move_ms.min(left.max(0.0) as u64),
                None => time.move_ms,
            };
            let ply = self.position.ply();
            self.position.cells_into(&mut cells);
            clocks_ms.clear();
            clocks_ms.extend(clocks.iter().map(|c| c.map(|c| c.max(0.0) as u64)));
            out.clear();
            out.extend((0..n).filter(|&s| self.out[s]));
            TurnView {
                game: &game_json,
                ply,
                seat,
                cells: &cells,
                side: setup.rules.side() as usize,
                moves: &self.moves[seen[seat]..],
                legal: &legal,
                kind,
                time_ms,
                clocks_ms: &clocks_ms,
                out: &out,
                last_move_ms: last_move_ms[seat],
            }
            .write_line(&mut turn);
            let sent = Instant::now();
            self.awaiting_since = Some(sent);
            let deadline = sent + Duration::from_millis(time_ms);
            if !self.bot(seat).is_running() {
                // Not running but not out: cannot happen (a fault takes both). Disqualify.
                self.disqualify(seat, Fault::new(FaultKind::Crash, "not running", None));
                continue;
            }
            self.bot(seat).send(&turn);
            self.wait_due(&[seat], deadline, true)?;
            if self.in_game() <= 1 {
                self.bot(seat).drop_late_answer(deadline);
                break;
            }
            if !self.bot(seat).is_running() {
                continue;
            }
            let received = self.bot(seat).receive(deadline);
            if interrupted() {
                return Err(Interrupted);
            }
            let bot = self.bot(seat);
            let answer = bot
                .judge_received(received, deadline, time_ms, "move")
                .and_then(|(line, at)| {
                    // A bot that catches SIGXCPU may answer past its CPU allowance: the answer
                    // is void.
                    match bot.cpu_limit_reached(&line) {
                        Some(fault) => Err(fault),
                        None => Ok((line, at)),
                    }
                });
            let (line, at) = match answer {
                Ok(answer) => answer,
                Err(fault) => {
                    self.disqualify(seat, fault);
                    continue;
                }
            };
            let ms = at.saturating_duration_since(sent).as_secs_f64() * 1000.0;
            let square = match judge_move(&line, ply) {
                Ok(square) => square,
                Err(fault) => {
                    self.disqualify(seat, fault);
                    continue;
                }
            };
            match self.position.play(square) {
                Ok(played) => {
                    if let Some(left) = clocks[seat].as_mut() {
                        *left += time.increment_ms as f64 - ms;
                    }
                    let record = MoveRecord {
                        ply,
                        seat,
                        square,
                        kind: played.kind,
                        flips: played.flips,
                        ms: to_the_microsecond(ms),
                    };
                    last_move_ms[seat] = Some(record.ms);
                    self.observer.moved(&setup.game, &record, &self.position);
                    self.moves.push(record);
                    seen[seat] = self.moves.len();
                }
                Err(illegal) => {
                    let text = Some(crate::protocol::fault_text(&line));
                    let mut detail = illegal.to_string();
                    // Without the ply echo a late second answer to the previous turn is read as
                    // this turn's: most often it names the bot's own previous square.
                    let played = &self.moves[setup.opening.len().min(self.moves.len())..];
                    let own_last = played.iter().rev().find(|m| m.seat == seat);
                    if own_last.is_some_and(|m| m.square == square)
                        && !crate::connection::says_what_it_answers(&line)
                    {
                        detail += ", the square of its own previous move: a late second answer \
                                   to its previous turn?";
                    }
                    self.disqualify(seat, Fault::new(FaultKind::Illegal, detail, text));
                }
            }
        }
        Ok(())
    }

    /// The sanction: kill the bot's group, take its seat out of the turn order, record why.
    ///
    /// Not once a termination signal has arrived: its handler has just killed every bot, so a
    /// bot found dead now died of the referee's own hand, and the game is abandoned (not
    /// recorded) at the next check of the flag, which every loop of the game makes.
    fn disqualify(&mut self, seat: Seat, fault: Fault) {
        if interrupted() {
            return;
        }
        let noticed_ms = self
            .awaiting_since
            .map(|sent| to_the_microsecond(sent.elapsed().as_secs_f64() * 1000.0));
        let ply = self.position.ply();
        let note = format!(
            "game {} seat {seat}: disqualified at ply {ply}: {}: {}",
            self.setup.game,
            crate::explain::kind_name(fault.kind),
            fault.detail
        );
        let (detail, stderr_tail) =
            self.bot(seat)
                .disqualify(fault.kind, fault.detail, &note, STDERR_TAIL_CHARS);
        self.out[seat] = true;
        self.position.remove_seat(seat);
        let fault = FaultRecord {
            seat,
            kind: fault.kind,
            ply,
            detail,
            text: fault.text,
            stderr_tail,
        };
        self.observer.faulted(&self.setup.game, &fault, noticed_ms);
        self.faults.push(fault);
    }
}
