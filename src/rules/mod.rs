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

#[cfg(test)]
mod tests {
    use super::ranking;

    #[test]
    fn ranking_orders_by_discs_shares_ties_and_puts_the_disqualified_last() {
        let all = [true; 4];
        // Most discs first; equal scores share a place, in seat order.
        assert_eq!(
            ranking(&[10, 20, 20, 5], false, &all),
            vec![vec![1, 2], vec![0], vec![3]]
        );
        // Anti-Reversi: the fewest discs first.
        assert_eq!(
            ranking(&[10, 20, 20, 5], true, &all),
            vec![vec![3], vec![0], vec![1, 2]]
        );
        // A disqualified seat ranks below every other, whatever its discs, and the disqualified
        // share the last place.
        assert_eq!(
            ranking(&[10, 20, 20, 5], true, &[true, false, true, true]),
            vec![vec![3], vec![0], vec![2], vec![1]]
        );
        assert_eq!(
            ranking(&[30, 1, 2], false, &[false, true, false]),
            vec![vec![1], vec![0, 2]]
        );
        // Everybody out: one shared last place.
        assert_eq!(ranking(&[3, 4, 5], false, &[false; 3]), vec![vec![0, 1, 2]]);
    }
}
