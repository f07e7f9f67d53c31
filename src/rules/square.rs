//! Square names as people and bots write them: a column letter from `a` (left) and a row number
//! from `1` (top), so `a1` is the top-left corner. Parsing is separate from board membership: a
//! well-formed name can still be off a given board, and that is the rules' business to report.

use std::fmt;
use std::str::FromStr;

/// A square by column and row, both counted from zero at the top-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    pub col: u8,
    pub row: u8,
}

/// The widest board this project plays is 10 columns, but names up to `z` and row 26 parse, so
/// that `k11` on a 10×10 board is reported as "off the board" rather than "not a square name".
pub const MAX_NAME_SIDE: u8 = 26;

impl Square {
    pub const fn new(col: u8, row: u8) -> Square {
        Square { col, row }
    }

    /// Index in a row-major layout `width` squares wide: the bit number in a bitboard.
    pub fn index(self, width: u8) -> u32 {
        self.row as u32 * width as u32 + self.col as u32
    }

    pub fn from_index(index: u32, width: u8) -> Square {
        Square::new((index % width as u32) as u8, (index / width as u32) as u8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col) as char, self.row as u32 + 1)
    }
}

/// Why a text is not a square name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a square name (a column letter and a row number, like d3 or j10)",
            self.0
        )
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(text.chars().take(40).collect());
        let bytes = text.as_bytes();
        let (&letter, digits) = bytes.split_first().ok_or_else(err)?;
        let letter = letter.to_ascii_lowercase();
        if !letter.is_ascii_lowercase()
            || digits.is_empty()
            || digits.len() > 2
            || !digits.iter().all(u8::is_ascii_digit)
            || digits[0] == b'0'
        {
            return Err(err());
        }
        let row: u8 = digits.iter().fold(0, |n, d| n * 10 + (d - b'0'));
        if row > MAX_NAME_SIDE {
            return Err(err());
        }
        Ok(Square::new(letter - b'a', row - 1))
    }
}

/// Parses a comma-separated list such as `c3,f6` (spaces around names allowed, empty list allowed).
pub fn parse_square_list(text: &str) -> Result<Vec<Square>, ParseSquareError> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect()
}

impl Square {
    /// Whether the name is one this project writes: columns `a` to `z`, rows 1 to 99.
    #[inline]
    fn has_short_name(self) -> bool {
        self.col < MAX_NAME_SIDE && self.row < 99
    }

    /// The name in quotes, in five bytes on the stack, and how many of them it takes, for a
    /// square that `has_short_name`: what a record writes for every move and every flipped
    /// disc, and the turn line for every legal move, where formatting each one through
    /// `Display` was most of what writing them cost (`valgrind --tool=callgrind`).
    #[inline]
    fn quoted_name(self) -> ([u8; 5], usize) {
        let row = self.row as u32 + 1;
        if row >= 10 {
            let tens = b'0' + (row / 10) as u8;
            let units = b'0' + (row % 10) as u8;
            ([b'"', b'a' + self.col, tens, units, b'"'], 5)
        } else {
            ([b'"', b'a' + self.col, b'0' + row as u8, b'"', 0], 4)
        }
    }

    /// The name as a JSON string, quotes included, appended to `out`: the bytes serde writes,
    /// without its scan for characters to escape, which a name never has.
    #[inline]
    pub fn push_json(self, out: &mut Vec<u8>) {
        if !self.has_short_name() {
            return self.push_json_as_serde(out);
        }
        // All five bytes copied at once and the line cut back to the name's length: a copy of
        // known size, where a copy of the name's own length calls `memcpy`.
        let (bytes, len) = self.quoted_name();
        let at = out.len();
        out.extend_from_slice(&bytes);
        out.truncate(at + len);
    }

    /// A square beyond the names this project writes, as serde has it (writing to a Vec cannot
    /// fail). Apart, so that `push_json` stays small enough to be inlined where it runs.
    #[cold]
    fn push_json_as_serde(self, out: &mut Vec<u8>) {
        let _ = serde_json::to_writer(&mut *out, &self);
    }
}

impl serde::Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.has_short_name() {
            return s.collect_str(self);
        }
        let (bytes, len) = self.quoted_name();
        // Only ASCII letters and digits between the quotes.
        match std::str::from_utf8(&bytes[1..len - 1]) {
            Ok(name) => s.serialize_str(name),
            Err(_) => s.collect_str(self),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        // The name is parsed where the deserializer holds it, not copied into a `String` first:
        // records hold a square for every move and every flipped disc.
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = Square;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Square, E> {
                text.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["a1", "h8", "j10", "e5", "b10"] {
            let sq: Square = name.parse().unwrap();
            assert_eq!(sq.to_string(), name);
        }
        assert_eq!("A1".parse::<Square>().unwrap(), Square::new(0, 0));
        assert_eq!("j10".parse::<Square>().unwrap(), Square::new(9, 9));
    }

    #[test]
    fn a_square_serialises_as_its_name_for_every_square_a_name_can_give() {
        for col in 0..MAX_NAME_SIDE {
            for row in 0..MAX_NAME_SIDE {
                let sq = Square::new(col, row);
                let json = serde_json::to_string(&sq).unwrap();
                assert_eq!(json, format!("\"{sq}\""));
                assert_eq!(serde_json::from_str::<Square>(&json).unwrap(), sq);
            }
        }
        // Beyond what a name can give, still as `Display` writes it.
        let far = Square::new(30, 120);
        assert_eq!(serde_json::to_string(&far).unwrap(), format!("\"{far}\""));
        // The hand-written JSON is serde's, for every name up to row 99 and beyond them.
        for col in (0..MAX_NAME_SIDE).chain([MAX_NAME_SIDE, 40]) {
            for row in (0..99).chain([99, 120]) {
                let sq = Square::new(col, row);
                let mut pushed = b"x".to_vec();
                sq.push_json(&mut pushed);
                let expected = format!("x{}", serde_json::to_string(&sq).unwrap());
                assert_eq!(String::from_utf8_lossy(&pushed), expected);
            }
        }
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in [
            "", "a", "1a", "a0", "a01", "a100", "ä1", "a-1", "a27", " a1",
        ] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn lists_parse() {
        assert_eq!(
            parse_square_list("c3, f6").unwrap(),
            vec![Square::new(2, 2), Square::new(5, 5)]
        );
        assert!(parse_square_list("").unwrap().is_empty());
        assert!(parse_square_list("c3,zz").is_err());
    }
}
