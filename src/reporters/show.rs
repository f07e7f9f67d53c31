//! `--show`: every board as it is played, drawn as `replay` draws it, so that what `--show`
//! printed and the replay look alike.

use super::{describe_result, Human};
use crate::render::{board_of_rows, board_text, colour_for, move_text, seat_label};
use crate::run::events::{Event, Flow, Interest, Sink};

pub struct Show {
    human: Human,
    /// Draws in colour (on a terminal, without `NO_COLOR`).
    colour: bool,
    /// The names in the seats of the game being shown.
    names: Vec<String>,
}

impl Show {
    pub fn new(human: Human) -> Show {
        use std::io::IsTerminal;
        let tty = if human.to_stderr {
            std::io::stderr().is_terminal()
        } else {
            std::io::stdout().is_terminal()
        };
        Show {
            human,
            colour: colour_for(tty),
            names: Vec::new(),
        }
    }
}

impl Sink for Show {
    fn interest(&self) -> Interest {
        Interest { moves: true }
    }

    fn event(&mut self, event: &Event) -> Flow {
        match event {
            Event::GameStarted {
                game, seats, rows, ..
            } => {
                self.names = seats.iter().map(|s| s.name.clone()).collect();
                let labels: Vec<String> = seats
                    .iter()
                    .map(|s| {
                        let name = crate::text::visible(&s.name);
                        format!("{} {name}", seat_label(s.seat, self.colour))
                    })
                    .collect();
                let board = board_text(&board_of_rows(rows), None, self.colour);
                self.human
                    .print(&format!("game {game}: {}\n{board}\n", labels.join(", ")));
            }
            Event::Moved {
                played: m, rows, ..
            } => {
                // Numbered as replay numbers moves: the move after `ply` moves is move ply + 1.
                let name = self.names.get(m.seat).map_or("", String::as_str);
                let line = move_text(
                    m,
                    m.ply as usize + 1,
                    &crate::text::visible(name),
                    0,
                    self.colour,
                );
                let board = board_text(&board_of_rows(rows), Some(m), self.colour);
                self.human.print(&format!("{line}\n{board}\n"));
            }
            Event::GameEnded {
                record, recorded, ..
            } => self.human.print(&format!(
                "game {}: {} (scores {:?}){}\n\n",
                record.game,
                describe_result(record),
                record.scores,
                if *recorded {
                    ""
                } else {
                    "; not recorded: a bot never answered start"
                }
            )),
            Event::Faulted { .. } | Event::Skipped(_) => {}
        }
        Flow::Continue
    }
}
