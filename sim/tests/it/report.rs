//! `reconcile-sim report` and `--html` through the real binary: the pages are written
//! where they belong, self-contained, the same bytes for the same inputs, linked both ways;
//! bad input is one clear line and exit 2. (What the pages do in a browser is checked in a
//! real one: `report-tests/`.)

use std::path::Path;

use crate::support::{code, repo, sim_in, stderr, stdout, tmp};

fn copy_scenario(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    std::fs::copy(
        repo().join("scenarios").join(name),
        dir.join("scenarios").join(name),
    )
    .unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A page has no reference to anything outside itself and forbids every request.
fn assert_self_contained(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for outside in ["http://", "https://", " src=", "<link", "@import"] {
        assert!(!page.contains(outside), "the page names {outside}");
    }
}

#[test]
fn report_of_a_scenario_writes_its_page_beside_it_the_same_bytes_every_time() {
    let dir = tmp("report-scenario");
    copy_scenario(&dir, "bug-d.json");
    let o = sim_in(&dir, &["report", "scenarios/bug-d.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "report: scenarios/bug-d.html\n");
    let page = read(&dir.join("scenarios/bug-d.html"));
    assert_self_contained(&page);
    assert!(page.contains("inv2-no-duplicate</span> broken at step d25 on tab c1"));
    // The replay command to copy names the file by its absolute path (it pastes anywhere).
    let replay = format!(
        "reconcile-sim replay {}",
        dir.join("scenarios/bug-d.json").display()
    );
    assert!(page.contains(&replay), "{replay}");
    // Seven steps of the file and the drain's, each a row.
    assert_eq!(page.matches(" id=\"row-").count(), 33);
    // Again, into another folder: the same bytes.
    let o = sim_in(&dir, &["report", "scenarios/bug-d.json", "--out", "again"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(read(&dir.join("again/bug-d.html")), page);
}

#[test]
fn report_of_a_bad_file_exits_2_with_one_line_naming_it() {
    let dir = tmp("report-bad");
    std::fs::write(
        dir.join("broken.json"),
        "{\"version\": 1,\n  \"store\": }\n",
    )
    .unwrap();
    let o = sim_in(&dir, &["report", "broken.json"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: broken.json:2:"), "{err}");
    assert!(!dir.join("broken.html").exists());
    let o = sim_in(&dir, &["report", "missing.json"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "error: missing.json: no such file or directory\n"
    );
    // A folder with nothing to report on.
    std::fs::create_dir(dir.join("empty")).unwrap();
    let o = sim_in(&dir, &["report", "empty"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("empty: no result file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn report_that_cannot_write_its_page_exits_2_and_says_where() {
    let dir = tmp("report-unwritable");
    copy_scenario(&dir, "bug-a.json");
    // A file where the output folder should be.
    std::fs::write(dir.join("blocked"), "").unwrap();
    let o = sim_in(
        &dir,
        &["report", "scenarios/bug-a.json", "--out", "blocked/sub"],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("blocked/sub"), "{}", stderr(&o));
}

#[test]
fn fuzz_html_links_every_class_to_its_page_and_report_of_the_result_writes_the_same() {
    let dir = tmp("report-fuzz");
    let o = sim_in(
        &dir,
        &[
            "fuzz",
            "--store",
            "fix-ab",
            "--seeds",
            "200",
            "--jobs",
            "2",
            "--html",
            "--out",
            "out",
            "--result",
            "r.result.json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("report: out/report.html ("),
        "{}",
        stdout(&o)
    );
    let page = read(&dir.join("out/report.html"));
    assert_self_contained(&page);
    let links: Vec<&str> = page
        .split("class=\"scenario-link\" href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    let classes = page.matches("<tr id=\"class-").count();
    assert!(classes > 0);
    assert_eq!(links.len(), classes, "every class has its page");
    for href in &links {
        let scenario_page = read(&dir.join("out").join(href));
        assert!(scenario_page.contains("<nav><a href=\"report.html\">"));
        assert!(dir.join("out").join(href).with_extension("json").exists());
    }
    // From the result file alone, elsewhere: the same classes, linked the same way.
    let o = sim_in(&dir, &["report", "r.result.json", "--out", "again"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let again = read(&dir.join("again/report.html"));
    assert_eq!(again.replace("again/", "out/"), page);
}

#[test]
fn check_html_links_each_new_class() {
    let dir = tmp("report-check");
    let o = sim_in(
        &dir,
        &[
            "check",
            "--store",
            "fix-abc",
            "--scenarios",
            repo().join("scenarios/paths").to_str().unwrap(),
            "--seeds",
            "1000",
            "--html",
            "--out",
            "out",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("report: out/report.html"),
        "{}",
        stdout(&o)
    );
    let page = read(&dir.join("out/report.html"));
    assert!(page.contains("reconcile-sim check"));
    assert!(page.contains("(new)"));
    assert!(page.matches("class=\"scenario-link\"").count() > 0);
}

#[test]
fn nightly_html_writes_the_nights_page_with_the_nights_beside_it() {
    let dir = tmp("report-nightly");
    let known = repo().join("scenarios");
    for seed in ["5", "6"] {
        let o = sim_in(
            &dir,
            &[
                "nightly",
                "--time",
                "1s",
                "--no-cargo-fuzz",
                "--stores",
                "fix-ab",
                "--jobs",
                "1",
                "--seed-start",
                seed,
                "--scenarios",
                known.to_str().unwrap(),
                "--out",
                "nights",
                "--html",
            ],
        );
        assert!(code(&o) <= 1, "{}", stderr(&o));
    }
    let mut nights: Vec<_> = std::fs::read_dir(dir.join("nights"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    nights.sort();
    assert_eq!(nights.len(), 2);
    let second = read(&nights[1].join("report.html"));
    assert!(
        second.contains("Nights found (2)"),
        "the history holds both nights"
    );
    assert_eq!(second.matches("<svg class=\"chart\"").count(), 2);
}
