//! The command line as a user meets it: perft output and option errors.

use crate::support::*;

#[test]
fn perft_prints_one_line_per_depth() {
    let out = run(&["perft", "4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "1 3\n2 20\n3 136\n4 1366\n");
    assert!(stderr(&out).contains("leaves/s"));
}

#[test]
fn perft_three_players() {
    let out = run(&["perft", "--players", "3", "4"]);
    assert_eq!(stdout(&out), "1 3\n2 20\n3 136\n4 630\n");
}

#[test]
fn bad_options_exit_2_and_name_the_culprit() {
    let cases: &[(&[&str], &str)] = &[
        (&["perft", "--board", "9x9", "2"], "'9x9'"),
        (&["perft", "--players", "5", "2"], "5 players"),
        (&["perft", "--blocked", "e4", "2"], "e4"),
        (&["perft", "--blocked", "c3,c3", "2"], "c3 is listed twice"),
        (
            &["perft", "--board", "octagon", "--blocked", "j1", "2"],
            "j1",
        ),
    ];
    for (args, needle) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}
