//! The command line as a user meets it: perft output and option errors.

use crate::support::*;

#[test]
fn perft_prints_one_line_per_depth() {
    let out = multiversi("perft").args(&["4"]).ok();
    assert_eq!(out.stdout(), "1 3\n2 20\n3 136\n4 1366\n");
    assert!(out.stderr().contains("leaves/s"));
}

#[test]
fn perft_three_players() {
    let out = multiversi("perft").args(&["--players", "3", "4"]).run();
    assert_eq!(out.stdout(), "1 3\n2 20\n3 136\n4 630\n");
}

#[test]
fn bad_options_exit_2_and_name_the_culprit() {
    let cases: &[(&[&str], &str)] = &[
        (&["--board", "9x9", "2"], "'9x9'"),
        (&["--players", "5", "2"], "5 players"),
        (&["--blocked", "e4", "2"], "e4"),
        (&["--blocked", "c3,c3", "2"], "c3 is listed twice"),
        (&["--board", "octagon", "--blocked", "j1", "2"], "j1"),
    ];
    for (args, needle) in cases {
        multiversi("perft")
            .args(args)
            .run()
            .assert_code(2)
            .assert_stderr_has(needle);
    }
}
