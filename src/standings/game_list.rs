//! The HTML page's list of every game, packed into pieces of 32 KB.
//!
//! The page lists every game, so this list is the one part of the standings that grows with the
//! games, and at the end of a league it was the largest thing the referee held: about 110 bytes a
//! game as a vector of lines, each with a boxed id. Packed, a game takes about a dozen bytes:
//! its id as the length it shares with the id before it and the rest (a league's ids differ from
//! the previous one in their last few characters), its number as the step from the number before
//! (zigzag, so a step back costs as little as one forward), its bots as variable-length
//! integers, a place as one byte when it is a whole or half number (always, for places the
//! standings compute), one byte for the seat count, the disqualifications and whether someone
//! won. The lines are read back in order only, which is all the page needs.

/// One game as the page lists it, unpacked.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLine {
    pub number: u32,
    pub id: String,
    /// Per seat: the bot, its fractional place, whether it was disqualified; the first `seated`
    /// are the game's.
    seats: [(u32, f32, bool); 4],
    seated: u8,
    /// The winner's bot; None for a draw for the whole table.
    pub winner: Option<u32>,
}

impl GameLine {
    /// Per seat, in move order: the bot, its fractional place, whether it was disqualified.
    pub fn seats(&self) -> &[(u32, f32, bool)] {
        &self.seats[..self.seated as usize]
    }
}

/// The games in the order they were added. Bots are stored as the caller numbered them when it
/// added the games; `renumber` says how the lines give them back (the standings number bots by
/// rank, known only once every game is in).
#[derive(Clone, Debug, Default)]
pub struct GameList {
    /// The packed lines, in pieces of about `PIECE` bytes with no line across two: a list that
    /// grows by doubling one buffer holds the old and the new buffer while it copies, up to
    /// three times what it needs, at the moment the standings hold the most.
    pieces: Vec<Vec<u8>>,
    /// The line being packed, before it goes into its piece.
    line: Vec<u8>,
    len: usize,
    /// `renumber[bot]` is the bot a line gives for `bot` as added; empty: as added.
    renumber: Vec<u32>,
    /// The last game added: its id and number, which the next one is stored against.
    last_id: String,
    last_number: u32,
}

/// About how many bytes a piece of the list holds.
const PIECE: usize = 32 * 1024;
/// A place byte that says four bytes of `f32` follow.
const FULL_PLACE: u8 = u8::MAX;
/// The flag byte: the seat count in the low three bits, then whether a bot won, then one bit per
/// seat for a disqualification.
const WON: u8 = 1 << 3;
const OUT: u8 = 1 << 4;

impl GameList {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a game: its number, id, seats (bot, place, disqualified; at most 4 are kept, as
    /// `Games` refuses a record with more) and winner.
    pub fn push(&mut self, number: u32, id: &str, seats: &[(u32, f32, bool)], winner: Option<u32>) {
        let seats = &seats[..seats.len().min(4)];
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        put_number(&mut line, zigzag(number as i64 - self.last_number as i64));
        let shared = self
            .last_id
            .bytes()
            .zip(id.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        put_number(&mut line, shared as u64);
        put_number(&mut line, (id.len() - shared) as u64);
        line.extend_from_slice(&id.as_bytes()[shared..]);
        self.last_id.clear();
        self.last_id.push_str(id);
        self.last_number = number;
        let mut flags = seats.len() as u8 | if winner.is_some() { WON } else { 0 };
        for (i, &(_, _, out)) in seats.iter().enumerate() {
            if out {
                flags |= OUT << i;
            }
        }
        line.push(flags);
        for &(bot, place, _) in seats {
            put_number(&mut line, bot as u64);
            let doubled = place * 2.0;
            if doubled >= 0.0 && doubled < FULL_PLACE as f32 && doubled.fract() == 0.0 {
                line.push(doubled as u8);
            } else {
                line.push(FULL_PLACE);
                line.extend_from_slice(&place.to_le_bytes());
            }
        }
        if let Some(bot) = winner {
            put_number(&mut line, bot as u64);
        }
        let room = self
            .pieces
            .last()
            .is_some_and(|p| p.capacity() - p.len() >= line.len());
        if !room {
            self.pieces.push(Vec::with_capacity(PIECE.max(line.len())));
        }
        if let Some(piece) = self.pieces.last_mut() {
            piece.extend_from_slice(&line);
        }
        self.line = line;
        self.len += 1;
    }

    /// Adds a game as its summary has it (bots numbered as in `g`).
    pub(crate) fn push_game(&mut self, g: &super::GameSummary) {
        let mut seats = [(0, 0.0, false); 4];
        for (slot, s) in seats.iter_mut().zip(&g.seats) {
            *slot = (s.bot, s.place, s.fault.is_some());
        }
        let winner = match g.result {
            crate::rules::Outcome::Win { winner } => g.seats.get(winner).map(|s| s.bot),
            crate::rules::Outcome::Draw => None,
        };
        self.push(g.number, &g.id, &seats[..g.seats.len().min(4)], winner);
    }

    /// From now on the lines give `renumber[bot]` for each bot as added.
    pub fn renumber(&mut self, renumber: Vec<u32>) {
        self.renumber = renumber;
    }

    /// The games in the order they were added.
    pub fn iter(&self) -> Lines<'_> {
        Lines {
            list: self,
            piece: 0,
            at: 0,
            id: Vec::new(),
            number: 0,
        }
    }
}

impl PartialEq for GameList {
    fn eq(&self, other: &GameList) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<'a> IntoIterator for &'a GameList {
    type Item = GameLine;
    type IntoIter = Lines<'a>;

    fn into_iter(self) -> Lines<'a> {
        self.iter()
    }
}

/// The lines of a `GameList`, unpacked one at a time.
pub struct Lines<'a> {
    list: &'a GameList,
    /// Where the next line starts: its piece, and its place in it.
    piece: usize,
    at: usize,
    /// The id and number of the line before, which the next is stored against.
    id: Vec<u8>,
    number: u32,
}

impl Iterator for Lines<'_> {
    type Item = GameLine;

    fn next(&mut self) -> Option<GameLine> {
        let pieces = &self.list.pieces;
        while pieces.get(self.piece).is_some_and(|p| self.at >= p.len()) {
            (self.piece, self.at) = (self.piece + 1, 0);
        }
        let bytes = pieces.get(self.piece)?;
        let bot = |b: u64| {
            let b = b as u32;
            self.list.renumber.get(b as usize).copied().unwrap_or(b)
        };
        let mut at = self.at;
        let number = (self.number as i64 + unzigzag(take_number(bytes, &mut at))) as u32;
        let shared = take_number(bytes, &mut at) as usize;
        let rest = take_number(bytes, &mut at) as usize;
        self.id.truncate(shared);
        self.id.extend_from_slice(&bytes[at..at + rest]);
        at += rest;
        self.number = number;
        // The list holds only what `push` wrote: each id is whole UTF-8 once its shared start
        // and its rest are together.
        let id = String::from_utf8(self.id.clone()).unwrap_or_default();
        let flags = bytes[at];
        at += 1;
        let seated = flags & 7;
        let mut seats = [(0, 0.0, false); 4];
        for (i, seat) in seats.iter_mut().enumerate().take(seated as usize) {
            let b = bot(take_number(bytes, &mut at));
            let place = match bytes[at] {
                FULL_PLACE => {
                    let mut four = [0; 4];
                    four.copy_from_slice(&bytes[at + 1..at + 5]);
                    at += 5;
                    f32::from_le_bytes(four)
                }
                doubled => {
                    at += 1;
                    doubled as f32 / 2.0
                }
            };
            *seat = (b, place, flags & (OUT << i) != 0);
        }
        let winner = (flags & WON != 0).then(|| bot(take_number(bytes, &mut at)));
        self.at = at;
        Some(GameLine {
            number,
            id,
            seats,
            seated,
            winner,
        })
    }
}

/// A signed step as an unsigned number, small for small steps either way: 0, -1, 1, -2, …
fn zigzag(step: i64) -> u64 {
    ((step << 1) ^ (step >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    (n >> 1) as i64 ^ -((n & 1) as i64)
}

/// Seven bits a byte, the last byte's top bit clear.
fn put_number(bytes: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        bytes.push(n as u8 | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
}

fn take_number(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut n, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        n |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return n;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_as_they_went_in_and_renumbered() {
        let long = "x".repeat(300);
        type Game<'a> = (u32, &'a str, Vec<(u32, f32, bool)>, Option<u32>);
        let games: Vec<Game> = vec![
            (
                1,
                "g-1",
                vec![(0, 1.0, false), (1, 2.0, false), (2, 3.0, true)],
                Some(0),
            ),
            (
                2,
                "",
                vec![
                    (2, 1.5, false),
                    (300, 1.5, false),
                    (1, 3.5, false),
                    (0, 3.5, true),
                ],
                None,
            ),
            (
                70_000,
                "ü·id",
                vec![(1, 2.25, false), (0, -1.0, false), (2, 200.0, false)],
                Some(1),
            ),
            (
                u32::MAX,
                &long,
                vec![(u32::MAX, f32::NAN, true)],
                Some(u32::MAX),
            ),
            (5, "five seats", vec![(0, 1.0, false); 5], None),
        ];
        let mut list = GameList::default();
        for (number, id, seats, winner) in &games {
            list.push(*number, id, seats, *winner);
        }
        assert_eq!(list.len(), games.len());
        let back: Vec<GameLine> = list.iter().collect();
        assert_eq!(back.len(), games.len());
        for (line, (number, id, seats, winner)) in back.iter().zip(&games) {
            assert_eq!(
                (line.number, line.id.as_str(), line.winner),
                (*number, *id, *winner)
            );
            let kept = &seats[..seats.len().min(4)];
            assert_eq!(line.seats().len(), kept.len());
            for (a, b) in line.seats().iter().zip(kept) {
                assert_eq!((a.0, a.2), (b.0, b.2));
                assert!(a.1 == b.1 || (a.1.is_nan() && b.1.is_nan()), "{a:?} {b:?}");
            }
        }
        list.renumber(vec![2, 0, 1]);
        let first = list.iter().next().unwrap();
        assert_eq!(
            first.seats(),
            [(2, 1.0, false), (0, 2.0, false), (1, 3.0, true)]
        );
        assert_eq!(first.winner, Some(2));
        // A bot beyond the map stays as it was.
        assert_eq!(list.iter().nth(1).unwrap().seats()[1].0, 300);
    }

    #[test]
    fn a_game_costs_its_id_and_a_few_bytes() {
        let mut list = GameList::default();
        for n in 1..=1000u32 {
            let id = format!("league-r1-1.2.3.4-8x8-{n:03}");
            let seats = [
                (0, 1.0, false),
                (1, 2.5, false),
                (2, 2.5, false),
                (3, 4.0, true),
            ];
            list.push(n, &id, &seats, Some(0));
        }
        let ids: usize = (1..=1000)
            .map(|n| format!("league-r1-1.2.3.4-8x8-{n:03}").len())
            .sum();
        // Each id shares all but its last few characters with the one before.
        assert!(ids > 1000 * 20);
        let held: usize = list.pieces.iter().map(|p| p.len()).sum();
        assert!(held <= 1000 * 18, "{held} bytes");
    }

    #[test]
    fn ids_sharing_a_start_and_numbers_going_back_come_back_whole() {
        // "ü" and "ý" share their first byte: a shared start may end inside a character.
        let games = [
            (7, "deal-ü"),
            (3, "deal-ý"),
            (3, "deal-ý"),
            (u32::MAX, "deal"),
            (0, "deal-ü-longer"),
            (9, ""),
            (10, "other"),
        ];
        let mut list = GameList::default();
        for (number, id) in games {
            list.push(number, id, &[(0, 1.0, false)], None);
        }
        let back: Vec<(u32, String)> = list.iter().map(|g| (g.number, g.id)).collect();
        let sent: Vec<(u32, String)> = games.iter().map(|&(n, id)| (n, id.into())).collect();
        assert_eq!(back, sent);
    }

    #[test]
    fn lines_across_many_pieces_and_a_line_longer_than_a_piece_come_back() {
        let long = "y".repeat(PIECE + 5000);
        let mut ids: Vec<String> = (0..6000u32).map(|n| format!("run-{}-{n}", n % 7)).collect();
        ids[3000] = long;
        let mut list = GameList::default();
        for (n, id) in ids.iter().enumerate() {
            list.push(n as u32, id, &[(n as u32 % 5, 1.0, n % 3 == 0)], None);
        }
        assert!(list.pieces.len() > 3, "{} pieces", list.pieces.len());
        assert!(list.pieces.iter().all(|p| !p.is_empty()));
        let back: Vec<GameLine> = list.iter().collect();
        assert_eq!(back.len(), ids.len());
        for (n, (line, id)) in back.iter().zip(&ids).enumerate() {
            assert_eq!((line.number, &line.id), (n as u32, id));
            assert_eq!(line.seats(), [(n as u32 % 5, 1.0, n % 3 == 0)]);
        }
    }

    #[test]
    fn zigzag_steps_round_trip() {
        for step in [0, 1, -1, 2, -2, u32::MAX as i64, -(u32::MAX as i64)] {
            assert_eq!(unzigzag(zigzag(step)), step);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }
}
