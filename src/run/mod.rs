//! The run layer, shared by every front-end (`match`, `league`, `check-bot`'s whole games, and
//! those to come): from the words a person wrote to bots the runner can start (`lineup`), the
//! schedule primitives (`seating`), the plan of a run (`plan`), the workers that play it
//! (`workers`) and write its records (`records`), the events they emit to sinks (`events`), the
//! process-wide safety nets around it (`guarded`), and how its end becomes an exit code
//! (`ending`).

pub mod ending;
pub mod events;
pub mod guarded;
pub mod lineup;
pub mod plan;
pub mod records;
pub mod seating;
pub mod setup;
pub mod workers;

pub use plan::{
    BotSpec, Claim, Claims, DealGames, DealPlan, GameIds, GamePlan, IdNumber, LeftOut, Run,
    SilentBots,
};
pub use workers::Summary;
