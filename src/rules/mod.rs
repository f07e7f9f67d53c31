//! The rules of Reversi for three or four players (see RULES.md): squares, validated options,
//! the bitboard core, the position with its one legality gate, and perft.

pub mod bitboard;
pub mod position;
pub mod setup;
pub mod square;

pub use bitboard::{Bits, Board, MoveKind, NEUTRAL};
pub use position::{
    ranking, Cell, Colour, IllegalMove, IllegalReason, Outcome, PlayedMove, Position, Seat,
};
pub use setup::{BoardKind, Rules, Setup, SetupError};
pub use square::{parse_square_list, ParseSquareError, Square};
