//! The results table `match` and `league` print (the standings' quick table), read by column.

use std::collections::BTreeMap;

/// The columns of a match's or league's results table, in order; `ready as` is the rest of the
/// line.
pub const TABLE_COLUMNS: [&str; 13] = [
    "#", "bot", "rating", "games", "points", "wins", "draws", "losses", "place", "discs", "faults",
    "mean ms", "max ms",
];

/// A bot's row of a results table, by column (`TABLE_COLUMNS`, and `ready as`); None when no row
/// is the bot's.
pub fn table_row(table: &str, bot: &str) -> Option<BTreeMap<&'static str, String>> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < TABLE_COLUMNS.len() || fields[1] != bot {
            return None;
        }
        let mut row: BTreeMap<&'static str, String> = TABLE_COLUMNS
            .iter()
            .zip(&fields)
            .map(|(&column, &value)| (column, value.to_string()))
            .collect();
        row.insert("ready as", fields[TABLE_COLUMNS.len()..].join(" "));
        Some(row)
    })
}
