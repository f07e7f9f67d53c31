//! The moves of a record line read without a JSON parser, when they are written exactly as the
//! referee writes them. The moves are most of a record (four fifths of its bytes in a league of
//! instant bots), and in the referee's compact form every move is the same run of field names
//! around a few numbers and square names:
//!
//! `{"ply":0,"seat":0,"square":"f4","kind":"flipping","flips":["e4"],"ms":0.025}`
//!
//! `moves` finds the record's top-level `"moves":[` and reads the array that follows it by
//! matching those bytes; anything else there (a space, another field order, an escape, an
//! exponent, a number out of range) makes it give up, and the line is read by the lean reading as
//! before. What it takes, serde_json reads to the same values: each field in the grammar JSON
//! allows and in the range its type has, each square name as `Square` parses it, each time by
//! the same arithmetic as serde_json's. The rest of the line is then read by the lean reading
//! with the moves replaced by `[]` (see `lean::digest`).

use super::games::Played;
use crate::rules::square::MAX_NAME_SIDE;
use crate::rules::Square;

/// The key that opens the moves, with the array's bracket.
const KEY: &[u8] = b"\"moves\":[";

/// A record's moves as the compact reading gives them: each move as the standings keep it, and
/// how many flipped discs it lists (for `check_usable`). Kept by a reading thread and filled
/// again for each line, so that its room is not asked for anew each time.
#[derive(Debug, Default, PartialEq)]
pub struct Moves {
    pub played: Vec<Played>,
    pub flips: Vec<usize>,
}

/// Where a line's moves are: the byte range of the array, brackets included; `moves` is filled
/// with what it holds. None when the line does not start with `{`, has no top-level
/// `"moves":[`, or the array is not in the referee's compact form. Every byte of an array it
/// takes is ASCII.
pub fn moves(line: &[u8], moves: &mut Moves) -> Option<std::ops::Range<usize>> {
    moves.played.clear();
    moves.flips.clear();
    if line.first() != Some(&b'{') {
        return None;
    }
    let key = memchr::memmem::find(line, KEY)?;
    if !top_level(&line[..key]) {
        return None;
    }
    let open = key + KEY.len() - 1;
    let mut s = Scan {
        bytes: line,
        at: open + 1,
    };
    if !s.eat(b"]") {
        loop {
            let (played, flips) = s.one_move()?;
            moves.played.push(played);
            moves.flips.push(flips);
            if s.eat(b"]") {
                break;
            }
            if !s.eat(b",") {
                return None;
            }
        }
    }
    Some(open..s.at)
}

/// Whether the end of `prefix` (a line from its first byte, `{`) is outside any string and
/// directly inside the line's outermost object: so that a key starting there is one of the
/// record's own fields. Follows JSON's strings (a backslash escapes the next byte) and brackets;
/// a prefix that is not valid JSON does not matter, as the rest of the line, this prefix
/// included, is parsed as JSON afterwards.
fn top_level(prefix: &[u8]) -> bool {
    let (mut depth, mut at) = (0usize, 0);
    while let Some(&b) = prefix.get(at) {
        at += 1;
        match b {
            // A string: on to the quote that ends it, over escaped bytes.
            b'"' => loop {
                let Some(rest) = prefix.get(at..) else {
                    return false;
                };
                let Some(i) = memchr::memchr2(b'"', b'\\', rest) else {
                    return false;
                };
                at += i + 1;
                if rest[i] == b'"' {
                    break;
                }
                at += 1;
            },
            b'{' | b'[' => depth += 1,
            b'}' | b']' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 1
}

/// The powers of ten that are exact in an `f64`, as serde_json divides by them.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A reading position in a line.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scan<'_> {
    /// Steps over `literal` if the line goes on with it. Inlined, so that each comparison is
    /// of a known length, made in a few instructions rather than a call.
    #[inline(always)]
    fn eat<const N: usize>(&mut self, literal: &[u8; N]) -> bool {
        let found = self.bytes.get(self.at..self.at + N) == Some(literal.as_slice());
        if found {
            self.at += literal.len();
        }
        found
    }

    #[inline(always)]
    fn expect<const N: usize>(&mut self, literal: &[u8; N]) -> Option<()> {
        self.eat(literal).then_some(())
    }

    /// The digits from here: at least one, and no leading zero (JSON's grammar), at most
    /// `max_digits`. Gives their value and how many there were.
    fn digits(&mut self, max_digits: usize) -> Option<(u64, usize)> {
        let rest = &self.bytes[self.at..];
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 || n > max_digits || (n > 1 && rest[0] == b'0') {
            return None;
        }
        self.at += n;
        Some((
            rest[..n]
                .iter()
                .fold(0, |v, &d| v * 10 + u64::from(d - b'0')),
            n,
        ))
    }

    /// A JSON integer that fits a `u32` (where serde_json refuses one out of a field's range,
    /// this gives up).
    fn small(&mut self) -> Option<u32> {
        let (v, _) = self.digits(10)?;
        u32::try_from(v).ok()
    }

    /// A square name in quotes, as `Square` parses it (`Square::from_str`: a letter of either
    /// case, then a row from 1 to `MAX_NAME_SIDE` without a leading zero). Names have no
    /// escapes: a backslash, like any byte that is not a letter or a digit, is no square name.
    fn square(&mut self) -> Option<Square> {
        let (open, letter, first, next) = match self.bytes.get(self.at..self.at + 4)? {
            &[a, b, c, d] => (a, b, c, d),
            _ => return None,
        };
        let letter = letter.to_ascii_lowercase();
        if open != b'"' || !letter.is_ascii_lowercase() || !(b'1'..=b'9').contains(&first) {
            return None;
        }
        let (row, len) = match next {
            b'"' => (first - b'0', 4),
            b'0'..=b'9' if self.bytes.get(self.at + 4) == Some(&b'"') => {
                ((first - b'0') * 10 + (next - b'0'), 5)
            }
            _ => return None,
        };
        if row > MAX_NAME_SIDE {
            return None;
        }
        self.at += len;
        Some(Square::new(letter - b'a', row - 1))
    }

    /// A move time: a JSON number without sign or exponent and with at most 15 significant
    /// digits, read as serde_json reads it (the digits as an integer, divided by the power of ten
    /// of the decimals: both exact in an `f64`, so the quotient is also the correctly rounded
    /// value).
    fn time(&mut self) -> Option<f64> {
        let (whole, n) = self.digits(15)?;
        if !self.eat(b".") {
            return Some(whole as f64);
        }
        let rest = &self.bytes[self.at..];
        let decimals = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if decimals == 0 || n + decimals > 15 || matches!(rest.get(decimals), Some(b'e' | b'E')) {
            return None;
        }
        let significand = rest[..decimals]
            .iter()
            .fold(whole, |v, &d| v * 10 + u64::from(d - b'0'));
        self.at += decimals;
        Some(significand as f64 / POW10[decimals])
    }

    /// One move object, with how many flipped discs it lists.
    fn one_move(&mut self) -> Option<(Played, usize)> {
        self.expect(b"{\"ply\":")?;
        self.small()?;
        self.expect(b",\"seat\":")?;
        let seat = self.small()? as usize;
        self.expect(b",\"square\":")?;
        let square = self.square()?;
        self.expect(b",\"kind\":")?;
        if !(self.eat(b"\"flipping\"") || self.eat(b"\"placing\"")) {
            return None;
        }
        self.expect(b",\"flips\":[")?;
        let mut flips = 0;
        if !self.eat(b"]") {
            loop {
                self.square()?;
                flips += 1;
                if self.eat(b"]") {
                    break;
                }
                self.expect(b",")?;
            }
        }
        self.expect(b",\"ms\":")?;
        let ms = self.time()?;
        self.expect(b"}")?;
        Some((Played { seat, square, ms }, flips))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Scan<'_> {
        Scan {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    #[test]
    fn a_square_name_is_read_as_square_parses_it() {
        // Every name of up to three bytes from letters, digits and bytes at their edges.
        let alphabet: Vec<&str> = vec![
            "a", "h", "z", "A", "J", "Z", "`", "{", "@", "[", "0", "1", "2", "6", "7", "9", "/",
            ":", "\\", "\"", " ", "é",
        ];
        let mut names = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(longer);
        }
        let mut taken = 0;
        for name in &names {
            let quoted = format!("\"{name}\",");
            let mut s = scan(&quoted);
            match s.square() {
                Some(square) => {
                    // The JSON string read: the name, or its start up to a quote in it.
                    let string = &quoted[..s.at];
                    let json: Option<Square> = serde_json::from_str(string).ok();
                    assert_eq!(Some(square), json, "{name}");
                    assert_eq!(Some(square), string.trim_matches('"').parse().ok());
                    if !name.contains('"') {
                        assert_eq!(&quoted[s.at..], ",", "{name}");
                        taken += 1;
                    }
                }
                // Given up on: only names that are not plain square names, or not at all.
                None => assert!(
                    name.parse::<Square>().is_err() || name.contains('\\'),
                    "{name}"
                ),
            }
        }
        assert!(taken > 100, "{taken}");
    }

    #[test]
    fn a_time_is_read_as_serde_json_reads_it() {
        let mut texts: Vec<String> = [
            "0",
            "0.0",
            "7",
            "7.0",
            "0.025",
            "2.985",
            "1234.567",
            "99999.999",
            "0.1",
            "123456789012345",
            "1234567890123.45",
            "0.000000000000001",
            "0.0000000000000000000001",
            "1e5",
            "1.5e-3",
            "1E2",
            "2.50",
            "-1.5",
            "-0",
            "01",
            "1.",
            ".5",
            "1.x",
            "1234567890123456",
            "0.1234567890123456",
            "18446744073709551616",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        // Times as the referee writes them, and numbers of every size.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let rounded = (x % 100_000_000) as f64 / 1000.0;
            let any = f64::from_bits(x >> 2);
            texts.push(serde_json::to_string(&rounded).unwrap());
            texts.push(serde_json::to_string(&any).unwrap());
            texts.push(format!("{}.{}", x % 1000, x % 10_000_000));
        }
        let mut taken = 0;
        for text in &texts {
            let line = format!("{text}}}");
            let mut s = scan(&line);
            let json: Option<f64> = serde_json::from_str(text).ok();
            if let Some(ms) = s.time().filter(|_| line[s.at..] == *"}") {
                taken += 1;
                assert_eq!(Some(ms.to_bits()), json.map(f64::to_bits), "{text}");
            }
        }
        assert!(taken > 40_000, "{taken}");
    }

    #[test]
    fn the_moves_are_found_only_as_the_records_own_field() {
        let moves = r#"[{"ply":0,"seat":1,"square":"j10","kind":"placing","flips":[],"ms":0.5}]"#;
        let mut found = Moves::default();
        for (line, taken) in [
            (format!(r#"{{"a":"x","moves":{moves},"b":1}}"#), true),
            (format!(r#"{{"moves":{moves}}}"#), true),
            (format!(r#"{{"a":{{"moves":[]}},"moves":{moves}}}"#), false),
            (format!(r#"{{"a":"x\"moves":{moves}}}"#), false),
            (format!(r#"{{"a":"\\","moves":{moves}}}"#), true),
            (format!(r#"{{"a":["]"],"moves":{moves}}}"#), true),
            (format!(r#"[{{"moves":{moves}}}]"#), false),
            (format!(r#" {{"moves":{moves}}}"#), false),
            (format!(r#"{{"a":"x,"moves":{moves}}}"#), false),
            (format!(r#"{{"moves":[{moves}]}}"#), false),
            (r#"{"moves":[]}"#.to_string(), true),
        ] {
            let range = moves_at(&line, &mut found);
            let at = line.find(r#""moves":["#).map(|i| i + KEY.len() - 1);
            assert_eq!(
                range.as_ref().map(|r| r.start),
                at.filter(|_| taken),
                "{line}"
            );
            if let Some(range) = range {
                let text = &line[range];
                assert!(text == moves || text == "[]", "{line}");
                let expected = if text == "[]" { 0 } else { 1 };
                assert_eq!(found.played.len(), expected);
                assert_eq!(found.flips.len(), expected);
            }
        }
        assert_eq!(
            found,
            Moves {
                played: vec![],
                flips: vec![]
            }
        );
        moves_at(&format!(r#"{{"moves":{moves}}}"#), &mut found);
        assert_eq!(
            found.played,
            vec![Played {
                seat: 1,
                square: Square::new(9, 9),
                ms: 0.5
            }]
        );
    }

    fn moves_at(line: &str, found: &mut Moves) -> Option<std::ops::Range<usize>> {
        moves(line.as_bytes(), found)
    }
}
