# Helpers shared by the bench scripts (sourced, not run).

# The multiversi binary to measure: $BIN when set (the test suite passes its own build, so that a
# quick run compiles nothing), else a fresh `cargo build --release`.
multiversi_bin() {
  if [ -n "${BIN:-}" ]; then
    echo "$BIN"
  else
    cargo build --release -q >&2
    echo "$PWD/target/release/multiversi"
  fi
}

# With $BASELINE set, copies that binary into WORK, so that a build during the run cannot change
# what is measured, and prints the copy's path; without it, prints nothing.
baseline_copy() { # WORK
  if [ -n "${BASELINE:-}" ]; then
    cp "$BASELINE" "$1/baseline"
    echo "$1/baseline"
  fi
}

# Fails, printing the table, unless the results table in FILE (as `match` and `league` print it:
# a header line, then one row per bot ranked 1 to BOTS) shows no fault for any of its BOTS bots.
# The faults column is found by its heading, so that a column added to the table moves nothing.
no_faults() { # FILE BOTS
  if ! awk -v n="$2" '
      NR == 1 { for (i = 1; i <= NF; i++) if ($i == "faults") f = i; if (!f) { err = 2; exit } }
      NR > 1 && NR <= n + 1 { if ($1 != NR - 1) { err = 3; exit } if ($f != 0) bad = 1 }
      END { exit err ? err : (NR < n + 1 ? 3 : bad) }' "$1"; then
    echo "unexpected faults (or a table without a faults column for $2 bots):"
    cat "$1"
    return 1
  fi
}
