//! A bot's life across a match: kept alive between games or restarted for each (`--restart`),
//! the startup limit in every game, a bot that cannot be started again, and its end (stdin
//! closed, `--grace-ms`, SIGTERM to its group, half the grace again, SIGKILL).

use crate::support::*;
use multiversi::record::FaultKind;
use std::collections::BTreeMap;

/// The messages each process of a probe was sent, by pid, in order of the pids' first event.
fn by_process(events: &[ProbeEvent]) -> Vec<(u32, Vec<&ProbeEvent>)> {
    let mut order: Vec<u32> = Vec::new();
    let mut map: BTreeMap<u32, Vec<&ProbeEvent>> = BTreeMap::new();
    for e in events {
        if !map.contains_key(&e.pid) {
            order.push(e.pid);
        }
        map.entry(e.pid).or_default().push(e);
    }
    order
        .into_iter()
        .map(|pid| (pid, map.remove(&pid).unwrap()))
        .collect()
}

fn types<'a>(events: &[&'a ProbeEvent]) -> Vec<&'a str> {
    events
        .iter()
        .map(|e| match &e.msg {
            Some(m) => m["type"].as_str().unwrap(),
            None => e.event.as_str(),
        })
        .collect()
}

#[test]
fn a_bot_that_outstays_its_input_gets_sigterm_then_sigkill() {
    let dir = temp_dir("grace");
    let record = dir.join("games.jsonl");
    // Bot 1 exits on SIGTERM, bot 2 ignores it, bot 3 exits as its input ends.
    let lingering = probe(&dir, "log-linger", &["eof=linger"]);
    let stubborn = probe(&dir, "log-stubborn", &["eof=stubborn"]);
    let prompt = probe(&dir, "log-prompt", &[]);
    let out = multiversi("match")
        .args(&[
            &lingering,
            &stubborn,
            &prompt,
            "--grace-ms",
            "2000",
            "--startup-ms",
            "20000",
            "--move-ms",
            "5000",
        ])
        .record(&record)
        .run();
    let ended = now_secs();
    out.assert_ok();
    assert_no_process_left(&dir.join("pids"));
    let records = read_records(&record);
    assert_eq!(records.len(), 1);
    // Ending slowly is no fault: the game was over and recorded before.
    assert!(records[0].faults.is_empty(), "{:?}", records[0].faults);
    check_record(&records[0]);

    let time_of = |log: &str, what: &str| {
        probe_log(&dir, log)
            .iter()
            .find(|e| e.event == what)
            .map(|e| e.t)
    };
    let eof = time_of("log-linger", "eof").expect("bot 1 saw its input end");
    let term = time_of("log-linger", "term").expect("bot 1 got SIGTERM");
    // The bot notes the end of its input and SIGTERM when it gets to run: 300 ms of slack for a
    // loaded machine on each bound.
    assert!(
        term - eof >= 1.7,
        "SIGTERM {:.0} ms after the end of input, before the 2000 ms grace period",
        (term - eof) * 1000.0
    );
    assert!(term - eof < 6.0, "{:.0} ms", (term - eof) * 1000.0);

    let eof = time_of("log-stubborn", "eof").expect("bot 2 saw its input end");
    let term = time_of("log-stubborn", "term").expect("bot 2 got SIGTERM");
    assert!(term - eof >= 1.7, "{:.0} ms", (term - eof) * 1000.0);
    // It ignored SIGTERM and was killed half a grace period later: the referee ended after.
    assert!(
        ended - term >= 0.7,
        "the referee ended {:.0} ms after SIGTERM, before half the grace period",
        (ended - term) * 1000.0
    );
    assert!(ended - term < 6.0, "{:.0} ms", (ended - term) * 1000.0);

    assert!(time_of("log-prompt", "eof").is_some());
    assert!(
        time_of("log-prompt", "term").is_none(),
        "a bot that exits at the end of its input gets no SIGTERM"
    );
}

/// Bots ended together share one grace period: each gets SIGTERM a grace after its own input
/// ended, not after the graces of the bots ended before it (which gave the fourth of four such
/// bots four graces).
#[test]
fn bots_that_outstay_their_input_share_one_grace_period() {
    let dir = temp_dir("grace-shared");
    let logs = ["log-1", "log-2", "log-3", "log-4"];
    let bots: Vec<String> = logs
        .iter()
        .map(|log| probe(&dir, log, &["eof=linger"]))
        .collect();
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend([
        "--grace-ms",
        "1000",
        "--startup-ms",
        "20000",
        "--move-ms",
        "5000",
    ]);
    multiversi("match")
        .args(&args)
        .record(&dir.join("games.jsonl"))
        .run()
        .assert_ok();
    assert_no_process_left(&dir.join("pids"));
    for log in logs {
        let events = probe_log(&dir, log);
        let time_of = |what: &str| events.iter().find(|e| e.event == what).map(|e| e.t);
        let eof = time_of("eof").expect("the bot saw its input end");
        let term = time_of("term").expect("the bot got SIGTERM");
        // A second grace would put SIGTERM 2000 ms after the end of input; 300 ms of slack on
        // each bound for a loaded machine.
        assert!(
            (0.7..1.7).contains(&(term - eof)),
            "{log}: SIGTERM {:.0} ms after the end of its input, with a grace of 1000 ms",
            (term - eof) * 1000.0
        );
    }
}

#[test]
fn restart_starts_every_bot_afresh_for_each_game() {
    let dir = temp_dir("restart-flag");
    let record = dir.join("games.jsonl");
    // Bot 1 waits for SIGTERM after its input ends: the end between games takes that path too.
    let lingering = probe(&dir, "log-a", &["eof=linger"]);
    let plain = probe(&dir, "log-b", &[]);
    multiversi("match")
        .args(&[
            &lingering,
            &plain,
            "builtin:random",
            "--restart",
            "--games",
            "3",
            "--grace-ms",
            "200",
            "--startup-ms",
            "20000",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    for r in &records {
        assert!(r.faults.is_empty(), "{:?}", r.faults);
        check_record(r);
    }
    for (log, end) in [("log-a", vec!["eof", "term"]), ("log-b", vec!["eof"])] {
        let events = probe_log(&dir, log);
        let processes = by_process(&events);
        assert_eq!(processes.len(), 3, "{log}: one process per game");
        for ((_, events), r) in processes.iter().zip(&records) {
            let seen = types(events);
            assert_eq!(seen.first(), Some(&"start"), "{log}: {seen:?}");
            assert_eq!(&seen[seen.len() - end.len()..], &end[..], "{log}: {seen:?}");
            assert_eq!(seen[seen.len() - end.len() - 1], "end", "{log}: {seen:?}");
            assert_eq!(seen.iter().filter(|&&t| t == "start").count(), 1);
            assert!(events
                .iter()
                .filter_map(|e| e.msg.as_ref())
                .all(|m| m["game"] == r.game.as_str()));
        }
    }

    // Without --restart, the same bots play all three games in one process each.
    let dir = temp_dir("kept-alive");
    let record = dir.join("games.jsonl");
    multiversi("match")
        .args(&[
            &probe(&dir, "log-a", &[]),
            &probe(&dir, "log-b", &[]),
            "builtin:random",
            "--games",
            "3",
            "--grace-ms",
            "200",
            "--startup-ms",
            "20000",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    for log in ["log-a", "log-b"] {
        let events = probe_log(&dir, log);
        let processes = by_process(&events);
        assert_eq!(processes.len(), 1, "{log}: kept alive");
        let seen = types(&processes[0].1);
        assert_eq!(seen.iter().filter(|&&t| t == "start").count(), 3);
        assert_eq!(seen.iter().filter(|&&t| t == "end").count(), 3);
        assert_eq!(seen.last(), Some(&"eof"));
    }
}

#[test]
fn the_startup_limit_holds_in_every_game_also_for_a_bot_kept_alive() {
    let dir = temp_dir("startup-again");
    let record = dir.join("games.jsonl");
    // Ready at once in the process's first game; in its second, after 10 s against a 4 s limit.
    let slow_second = probe(&dir, "log-a", &["ready_game=2", "ready_ms=10000"]);
    multiversi("match")
        .args(&[
            &slow_second,
            "builtin:random",
            "builtin:greedy",
            "--games",
            "3",
            "--startup-ms",
            "4000",
            "--grace-ms",
            "200",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    for r in &records {
        check_record(r);
    }
    assert!(records[0].faults.is_empty(), "{:?}", records[0].faults);
    let f = &records[1].faults;
    assert_eq!(f.len(), 1, "{f:?}");
    // Bot 1 sits in seat (0 - 1) mod 3 = 2 in the second game.
    assert_eq!((f[0].seat, f[0].kind, f[0].ply), (2, FaultKind::Timeout, 0));
    assert!(f[0].detail.contains("4000"), "{f:?}");
    assert!(records[1].seats[2].ready.is_none());
    // Started afresh for the third game, it answers at once again.
    assert!(records[2].faults.is_empty(), "{:?}", records[2].faults);
    let events = probe_log(&dir, "log-a");
    assert_eq!(by_process(&events).len(), 2);
}

#[test]
fn a_bot_that_cannot_be_started_again_faults_in_each_later_game() {
    let dir = temp_dir("cannot-restart");
    let record = dir.join("games.jsonl");
    // An executable wrapper that the bot deletes before it crashes in its second turn.
    let wrapper = dir.join("run bot");
    let remove = format!("path={}", utf8(&wrapper));
    let wrapped = probe(&dir, "log-a", &["fault=crash-remove", "at=2", &remove]);
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec {wrapped}\n")).unwrap();
    let mut perms = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&wrapper, perms).unwrap();
    multiversi("match")
        .args(&[
            &bot_cmd(&[utf8(&wrapper)]),
            "builtin:random",
            "builtin:greedy",
            "--games",
            "3",
            "--startup-ms",
            "20000",
            "--grace-ms",
            "200",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let records = read_records(&record);
    assert_eq!(records.len(), 3);
    let f = &records[0].faults;
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].seat, f[0].kind, f[0].ply), (0, FaultKind::Crash, 3));
    assert!(f[0].detail.contains("exit code 3"), "{f:?}");
    for (g, r) in records.iter().enumerate().skip(1) {
        check_record(r);
        let seat = (3 - g) % 3;
        assert_eq!(r.faults.len(), 1, "{:?}", r.faults);
        let f = &r.faults[0];
        assert_eq!(
            (f.seat, f.kind, f.ply),
            (seat, FaultKind::Crash, 0),
            "{f:?}"
        );
        assert!(f.detail.contains("could not be started"), "{f:?}");
        assert!(r.seats[seat].ready.is_none());
        // The other two played the game out.
        assert!(r.moves.len() > 10);
        assert_eq!(r.ranking.last(), Some(&vec![seat]));
    }
}

#[test]
fn a_bot_whose_path_holds_spaces_starts_when_quoted() {
    // As in a checkout under "My Projects": quoted, the path is one argument.
    let dir = temp_dir("path with spaces");
    let bots = dir.join("my bots");
    std::fs::create_dir_all(&bots).unwrap();
    let script = bots.join("probe bot.py");
    let source = test_bot("probe.py");
    std::fs::copy(source, &script).unwrap();
    let record = dir.join("games.jsonl");
    let (pids, log) = (dir.join("pids"), dir.join("log"));
    let bot = bot_cmd(&["python3", utf8(&script), utf8(&pids), utf8(&log)]);
    multiversi("match")
        .args(&[
            &bot,
            "builtin:random",
            "builtin:greedy",
            "--startup-ms",
            "20000",
        ])
        .record(&record)
        .ok();
    assert_no_process_left(&dir.join("pids"));
    let r = &read_records(&record)[0];
    assert!(r.faults.is_empty(), "{:?}", r.faults);
    assert_eq!(r.seats[0].command[1], script.to_str().unwrap());
    assert!(r.seats[0].ready.is_some());
    check_record(r);
}

/// A descriptor the referee inherited without close-on-exec (a shell's redirection, a
/// harness's pipe) does not reach the bots: a bot holding a harness's pipe could keep the
/// harness waiting for its end.
#[test]
fn descriptors_the_referee_inherited_do_not_reach_the_bots() {
    let dir = temp_dir("inherited-fds");
    let listed = dir.join("fds.txt");
    let held = dir.join("held.txt");
    let script = format!("exec 9>{}; exec \"$0\" \"$@\"", shell_word(utf8(&held)));
    let bot = bot_cmd(&[
        "sh",
        "-c",
        &format!(
            "ls /proc/self/fd > {}; exec {} bot random",
            shell_word(utf8(&listed)),
            shell_word(env!("CARGO_BIN_EXE_multiversi"))
        ),
    ]);
    multiversi_under(&["sh", "-c", &script], "match")
        .args(&[&bot, "builtin:random", "builtin:random", "--games", "1"])
        .run()
        .assert_ok();
    // ls's own: its stdin, stdout and stderr, and the directory it lists.
    let fds = std::fs::read_to_string(&listed).unwrap();
    assert_eq!(
        fds.split_whitespace().collect::<Vec<_>>(),
        ["0", "1", "2", "3"]
    );
}
