//! The state counts `docs/model.md` gives for `explore` ("Explore: state counts"), run by
//! the real binary: every command of that table must print the distinct states the table
//! says. A change to the model, to the facts the oracle reads or to a reduction that
//! moves a count fails here until the table says the new figure (and the journal says
//! why). Regression test for issue 48: facts the oracle never read split the states of
//! `explore --store durable --sends 2` 2.35× (9.66 M to 22.76 M) and nothing said so.

use crate::support::{code, repo, sim, stderr, stdout};

/// The heading of the table in `docs/model.md`.
const TABLE: &str = "**State counts**";

/// The table's rows: the command's arguments (after `reconcile-sim`) and the distinct
/// states it gives.
fn documented() -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(repo().join("docs/model.md")).expect("docs/model.md");
    let (_, after) = text
        .split_once(TABLE)
        .unwrap_or_else(|| panic!("docs/model.md has no {TABLE} table"));
    after
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let command = cells
                .get(1)?
                .strip_prefix("`reconcile-sim ")?
                .strip_suffix('`')?;
            let digits: String = cells.get(2)?.chars().filter(char::is_ascii_digit).collect();
            Some((command.to_string(), digits.parse().ok()?))
        })
        .collect()
}

/// The distinct states an `explore` report prints.
fn distinct_states(report: &str) -> Option<u64> {
    let (_, rest) = report.split_once("distinct states ")?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn explore_state_counts_are_the_documented_ones() {
    let rows = documented();
    assert!(
        rows.len() >= 4,
        "the {TABLE} table of docs/model.md: {rows:?}"
    );
    for (command, documented) in rows {
        let args: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(args[0], "explore", "{command}");
        assert!(
            !args.contains(&"--jobs"),
            "{command}: one thread, so the count is exact"
        );
        let out = sim(&args);
        let report = stdout(&out);
        assert_eq!(code(&out), 0, "{command}: {report}{}", stderr(&out));
        let states = distinct_states(&report).unwrap_or_else(|| panic!("{command}: {report}"));
        assert_eq!(
            states, documented,
            "`reconcile-sim {command}` visits {states} distinct states, docs/model.md ({TABLE}) says {documented}. If the change is meant, update the figure there (and where README.md and docs/benchmarks.md quote the bound) and say why the count moved in docs/benchmarks-journal.md; if not, a state field, a fact or a reduction changed what explore tells apart"
        );
    }
}
