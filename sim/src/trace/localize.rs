//! Where in the store: spectrum-based fault localization of one class from the runs its
//! shrinking already makes (`--localize`).
//!
//! Shrinking replays hundreds of near-identical schedules of one failure, some still
//! failing the same way and some passing, differing by a step or two: the best contrast
//! set a localizer can ask for. A [`Recording`] wraps the property the shrinker keeps and
//! notes, for every run, whether it showed the class, passed, or failed some other way,
//! and which lines of the store's own source files ran ([`crate::model::source_lines`],
//! from the adapter's V8 block coverage). [`localize`] then scores every line that ran in
//! a failing run by Ochiai (Abreu, Zoeteweij and van Gemund, "On the Accuracy of
//! Spectrum-based Fault Localization", 2007), which beat Tarantula (Jones and Harrold,
//! 2005) in their study:
//!
//! `score(line) = failed(line) / sqrt(total_failed * (failed(line) + passed(line)))`
//!
//! A line no failing run ran never ranks (an unreachable branch, or code of another
//! path). Runs that fail some other way (another class) are left out: they are neither
//! evidence for this class nor against it. With no passing run (or no failing one) there
//! is nothing to contrast, and the result says so instead of guessing.
//!
//! [`causes`] groups classes whose best line is the same line: one suspected cause.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::source_lines::{self, Recorded};
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::Invariant;
use crate::run::{Next, Observer};
use crate::trace::shrink::Failing;

/// How many lines a class's localization keeps (best first).
pub const LINES_KEPT: usize = 10;

/// One line of the store, ranked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedLine {
    /// The file, relative to the store's project root.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// Its Ochiai score, 0 to 1.
    pub score: f64,
    /// The line's text (trimmed), or empty when the file could not be read.
    pub text: String,
}

impl RankedLine {
    /// `file:line`.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Scores are finite (rounded ratios of counts, never NaN), so equality is an equivalence.
impl Eq for RankedLine {}

/// What localization says about one class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Localization {
    /// The best lines, best first (score descending, then file, then line); empty when it
    /// cannot say, with `reason`.
    pub lines: Vec<RankedLine>,
    /// Why `lines` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Runs recorded that showed the class.
    pub failing: usize,
    /// Runs recorded that passed.
    pub passing: usize,
}

impl Eq for Localization {}

impl Localization {
    /// Nothing localized, and why.
    pub fn not(reason: &str) -> Localization {
        Localization {
            reason: Some(reason.to_string()),
            ..Localization::default()
        }
    }

    /// The best line, if any.
    pub fn top(&self) -> Option<&RankedLine> {
        self.lines.first()
    }

    /// The best `n` lines as report lines (`file:line  score  text`), each after
    /// `indent`; the reason instead when there are none.
    pub fn format(&self, n: usize, indent: &str) -> String {
        if self.lines.is_empty() {
            return format!(
                "{indent}{}\n",
                self.reason.as_deref().unwrap_or("not localized")
            );
        }
        let width = self
            .lines
            .iter()
            .take(n)
            .map(|l| l.at().len())
            .max()
            .unwrap_or(0);
        self.lines
            .iter()
            .take(n)
            .map(|l| format!("{indent}{:<width$}  {:.3}  {}\n", l.at(), l.score, l.text))
            .collect()
    }

    /// The rank of `file:line`, ties counted pessimistically (the number of lines scoring
    /// at least as high); `None` when it is not among the lines kept.
    pub fn rank_of(&self, file: &str, line: u32) -> Option<usize> {
        let me = self
            .lines
            .iter()
            .find(|l| l.file == file && l.line == line)?;
        Some(self.lines.iter().filter(|l| l.score >= me.score).count())
    }
}

/// One run's verdict for the class and the lines it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Run {
    /// It showed the class (the shrinker's property held).
    failed: bool,
    /// It passed (no violation left unexcused).
    passed: bool,
    lines: BTreeMap<String, BTreeSet<u32>>,
    /// The lines of each of its steps (the last is the violating one, in a failing run).
    steps: Vec<BTreeMap<String, BTreeSet<u32>>>,
}

/// The runs recorded for one class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spectrum {
    runs: Vec<Run>,
    root: Option<String>,
    unsupported: Option<String>,
}

impl Spectrum {
    /// Note one run: whether it showed the class, and what it recorded.
    pub fn add(&mut self, failed: bool, recorded: Recorded) {
        if self.root.is_none() {
            self.root = recorded.root;
        }
        if self.unsupported.is_none() {
            self.unsupported = recorded.unsupported;
        }
        self.runs.push(Run {
            failed,
            passed: !failed && recorded.passed == Some(true),
            lines: recorded.lines,
            steps: recorded.steps,
        });
    }

    /// The directory the lines' files are relative to, when a store said.
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }
}

/// What a failing run contributes: the lines of its whole run, or only those of the step
/// that broke the invariant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// Every line the failing run ran: for failures noticed later than the wrong decision
    /// (a row that lingers is seen at a fetch response or at the end).
    WholeRun,
    /// Steps, not runs, are the units: a failing run's violating step is a failing unit,
    /// every other step (of a passing run, or of a failing run before it broke) a passing
    /// one. For failures noticed the moment the store makes them (a row lost, a render
    /// misshapen, a crash), where every line that merely set up the failure (the send, the
    /// turn's start) ran in an earlier step and the render runs in every step.
    ViolatingStep,
}

impl Evidence {
    /// What evidence localizes a class of `invariant`: the violating step for the
    /// invariants judged after every step (inv1, inv3, inv5, crash), the whole run for
    /// those judged after a fetch or at the end (inv2, inv4).
    pub fn for_invariant(invariant: Invariant) -> Evidence {
        match invariant {
            Invariant::NoDuplicate | Invariant::Converges => Evidence::WholeRun,
            Invariant::NoLoss
            | Invariant::NewerTurnPreserved
            | Invariant::RenderShape
            | Invariant::Crash => Evidence::ViolatingStep,
        }
    }
}

/// Scores of every line a failing run ran (as `evidence` says), best first (score
/// descending, then file, then line), from `spectrum`; or why there are none.
pub fn rank(spectrum: &Spectrum, evidence: Evidence) -> Result<Vec<(String, u32, f64)>, String> {
    if let Some(why) = &spectrum.unsupported {
        return Err(format!("not localized: {why}"));
    }
    let failing = spectrum.runs.iter().filter(|r| r.failed).count();
    let passing = spectrum.runs.iter().filter(|r| r.passed).count();
    if failing == 0 {
        return Err("not localized: no run showing the class was recorded".into());
    }
    if passing == 0 {
        return Err(format!(
            "not localized: no passing run to contrast with ({failing} failing runs recorded, none passed)"
        ));
    }
    // The units (each a set of lines) that failed and that passed.
    let mut failed_units: Vec<&BTreeMap<String, BTreeSet<u32>>> = Vec::new();
    let mut passed_units: Vec<&BTreeMap<String, BTreeSet<u32>>> = Vec::new();
    for run in spectrum.runs.iter().filter(|r| r.failed || r.passed) {
        match (evidence, run.failed, run.steps.split_last()) {
            (Evidence::ViolatingStep, true, Some((last, before))) => {
                failed_units.push(last);
                passed_units.extend(before);
            }
            (Evidence::ViolatingStep, false, Some(_)) => passed_units.extend(&run.steps),
            (_, true, _) => failed_units.push(&run.lines),
            (_, false, _) => passed_units.push(&run.lines),
        }
    }
    let failing = failed_units.len();
    // (failed, passed) per line.
    let mut counts: BTreeMap<(&str, u32), (u32, u32)> = BTreeMap::new();
    for (failed, units) in [(true, &failed_units), (false, &passed_units)] {
        for unit in units.iter() {
            for (file, lines) in unit.iter() {
                for &line in lines {
                    let c = counts.entry((file.as_str(), line)).or_default();
                    if failed {
                        c.0 += 1;
                    } else {
                        c.1 += 1;
                    }
                }
            }
        }
    }
    if counts.is_empty() {
        return Err("not localized: no line of the store's own files ran".into());
    }
    let mut ranked: Vec<(String, u32, f64)> = counts
        .into_iter()
        .filter(|(_, (f, _))| *f > 0)
        .map(|((file, line), (f, p))| {
            let score = f64::from(f) / ((failing as f64) * f64::from(f + p)).sqrt();
            (file.to_string(), line, score)
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.2.total_cmp(&a.2)
            .then_with(|| a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    Ok(ranked)
}

/// The best [`LINES_KEPT`] lines for the class `spectrum` recorded, with their text read
/// from the store's project root; or why it cannot say.
pub fn localize(spectrum: &Spectrum, evidence: Evidence) -> Localization {
    let failing = spectrum.runs.iter().filter(|r| r.failed).count();
    let passing = spectrum.runs.iter().filter(|r| r.passed).count();
    match rank(spectrum, evidence) {
        Err(reason) => Localization {
            lines: Vec::new(),
            reason: Some(reason),
            failing,
            passing,
        },
        Ok(ranked) => {
            let mut texts = Texts::new(spectrum.root());
            let lines = ranked
                .into_iter()
                .map(|(file, line, score)| RankedLine {
                    text: texts.line(&file, line),
                    file,
                    line,
                    // Rounded, so that reports and result files do not print float noise.
                    score: (score * 1000.0).round() / 1000.0,
                })
                .filter(|l| !punctuation_only(&l.text))
                .take(LINES_KEPT)
                .collect();
            Localization {
                lines,
                reason: None,
                failing,
                passing,
            }
        }
    }
}

/// Whether a line's text is punctuation only (`}`, `});`, `) {`): never ranked. Such a
/// line is no decision of its own: its position belongs to the block around it, so it
/// always scores exactly as that block's statements do and only pushes them down a rank
/// (ties are counted pessimistically), and no fix is ever made on it. A line whose text
/// could not be read (empty) is kept: nothing is known about it.
fn punctuation_only(text: &str) -> bool {
    !text.is_empty()
        && !text.chars().any(|c| {
            c.is_alphanumeric() || c == '_' || c == '$' || c == '"' || c == '\'' || c == '`'
        })
}

/// Lines of the store's files, each file read once.
struct Texts<'a> {
    root: Option<&'a str>,
    files: BTreeMap<String, Vec<String>>,
}

impl<'a> Texts<'a> {
    fn new(root: Option<&'a str>) -> Texts<'a> {
        Texts {
            root,
            files: BTreeMap::new(),
        }
    }

    fn line(&mut self, file: &str, line: u32) -> String {
        let root = self.root;
        let lines = self.files.entry(file.to_string()).or_insert_with(|| {
            root.and_then(|r| std::fs::read_to_string(Path::new(r).join(file)).ok())
                .map(|t| t.lines().map(|l| l.trim().to_string()).collect())
                .unwrap_or_default()
        });
        lines
            .get(line.saturating_sub(1) as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// A suspected cause: classes whose best line is one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cause {
    /// The line, `file:line`.
    pub at: String,
    /// Its text.
    pub text: String,
    /// The classes it is the best line of, in the order given.
    pub classes: Vec<String>,
}

/// Classes (by name, with their localization) grouped by their best line, in the order
/// each line is first the best of a class; classes with nothing localized stay out.
pub fn causes<'a>(classes: impl IntoIterator<Item = (String, &'a Localization)>) -> Vec<Cause> {
    let mut out: Vec<Cause> = Vec::new();
    for (name, loc) in classes {
        let Some(top) = loc.top() else { continue };
        let at = top.at();
        match out.iter_mut().find(|c| c.at == at) {
            Some(c) => c.classes.push(name),
            None => out.push(Cause {
                at,
                text: top.text.clone(),
                classes: vec![name],
            }),
        }
    }
    out
}

/// A [`Failing`] property that records, for each run it judges, whether it held and what
/// lines the store ran: the spectrum of the class being shrunk.
pub struct Recording<'a> {
    inner: &'a dyn Failing,
    spectrum: RefCell<Spectrum>,
}

impl<'a> Recording<'a> {
    /// Record the runs `inner` judges.
    pub fn new(inner: &'a dyn Failing) -> Recording<'a> {
        Recording {
            inner,
            spectrum: RefCell::new(Spectrum::default()),
        }
    }

    /// What was recorded.
    pub fn into_spectrum(self) -> Spectrum {
        self.spectrum.into_inner()
    }

    /// Record one more run, made by `run` (whether it showed the class): a contrast run
    /// beyond the shrinker's.
    pub fn add(&self, run: impl FnOnce() -> bool) {
        let (failed, recorded) = source_lines::record(run);
        self.spectrum.borrow_mut().add(failed, recorded);
    }
}

impl Failing for Recording<'_> {
    fn stores(&self) -> &dyn StoreFactory {
        self.inner.stores()
    }
    fn run(
        &self,
        config: &WorldConfig,
        next: &mut dyn FnMut(&World, &[Step], usize) -> Next,
    ) -> (Vec<Step>, bool) {
        let ((steps, fails), recorded) = source_lines::record(|| self.inner.run(config, next));
        self.spectrum.borrow_mut().add(fails, recorded);
        (steps, fails)
    }
    fn replay(&self, config: &WorldConfig, steps: &[Step], observer: &mut dyn Observer) {
        self.inner.replay(config, steps, observer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(failed: bool, passed: bool, lines: &[u32]) -> (bool, Recorded) {
        let mut r = Recorded {
            passed: Some(passed),
            ..Recorded::default()
        };
        r.lines.insert(
            "s.ts".into(),
            lines.iter().copied().collect::<BTreeSet<_>>(),
        );
        (failed, r)
    }

    fn spectrum(runs: &[(bool, bool, &[u32])]) -> Spectrum {
        let mut s = Spectrum::default();
        for (f, p, l) in runs {
            let (f, r) = run(*f, *p, l);
            s.add(f, r);
        }
        s
    }

    #[test]
    fn ochiai_ranks_the_line_only_failing_runs_ran_first() {
        // Line 5 runs in every failing run and no passing one; line 1 in all runs; line 3
        // in one failing and one passing run.
        let s = spectrum(&[
            (true, false, &[1, 3, 5]),
            (true, false, &[1, 5]),
            (false, true, &[1, 3]),
            (false, true, &[1]),
        ]);
        let ranked = rank(&s, Evidence::WholeRun).unwrap();
        assert_eq!(ranked[0].1, 5);
        assert!((ranked[0].2 - 1.0).abs() < 1e-9);
        // line 1: 2 / sqrt(2 * 4) = 0.707; line 3: 1 / sqrt(2 * 2) = 0.5
        assert_eq!(ranked[1].1, 1);
        assert!((ranked[1].2 - 2.0 / 8f64.sqrt()).abs() < 1e-9);
        assert_eq!(ranked[2].1, 3);
        assert!((ranked[2].2 - 0.5).abs() < 1e-9);
    }

    #[test]
    fn at_the_violating_step_only_what_that_step_ran_is_evidence() {
        // Both failing runs sent (line 2) before the step that lost the row ran line 9;
        // the passing runs did not send, or never reached line 9.
        let mut s = Spectrum::default();
        for (failed, lines, before, last) in [
            (true, vec![1, 2, 9], vec![1, 2], vec![1, 9]),
            (true, vec![1, 2, 9], vec![1, 2], vec![1, 9]),
            (false, vec![1, 9], vec![1], vec![1, 9]),
            (false, vec![1, 3], vec![1], vec![1, 3]),
        ] {
            let mut r = Recorded {
                passed: Some(!failed),
                ..Recorded::default()
            };
            r.lines.insert("s.ts".into(), lines.into_iter().collect());
            r.steps.push(BTreeMap::from([(
                "s.ts".to_string(),
                before.into_iter().collect::<BTreeSet<u32>>(),
            )]));
            r.steps.push(BTreeMap::from([(
                "s.ts".to_string(),
                last.into_iter().collect::<BTreeSet<u32>>(),
            )]));
            s.add(failed, r);
        }
        // Whole runs: the send (line 2, in no passing run) beats the bug (line 9).
        assert_eq!(rank(&s, Evidence::WholeRun).unwrap()[0].1, 2);
        // The violating step: the send is no evidence; line 9 ranks first.
        let at_step = rank(&s, Evidence::ViolatingStep).unwrap();
        assert_eq!(at_step[0].1, 9);
        assert!(at_step.iter().all(|(_, l, _)| *l != 2), "{at_step:?}");
    }

    #[test]
    fn a_line_no_failing_run_ran_never_ranks() {
        // Line 9 (an unreachable branch for this class) ran only in a passing run.
        let s = spectrum(&[(true, false, &[1, 2]), (false, true, &[1, 9])]);
        let ranked = rank(&s, Evidence::WholeRun).unwrap();
        assert!(ranked.iter().all(|(_, l, _)| *l != 9), "{ranked:?}");
    }

    #[test]
    fn runs_failing_another_way_are_no_evidence() {
        // The third run failed, but not with the class: it must not lower line 2's score.
        let s = spectrum(&[
            (true, false, &[1, 2]),
            (false, true, &[1]),
            (false, false, &[2]),
        ]);
        let ranked = rank(&s, Evidence::WholeRun).unwrap();
        assert_eq!((ranked[0].1, ranked[0].2), (2, 1.0));
    }

    #[test]
    fn without_a_passing_run_it_says_so_instead_of_guessing() {
        let s = spectrum(&[(true, false, &[1, 2]), (false, false, &[1])]);
        let loc = localize(&s, Evidence::WholeRun);
        assert!(loc.lines.is_empty());
        let why = loc.reason.unwrap();
        assert!(why.contains("no passing run"), "{why}");
        let none = localize(&Spectrum::default(), Evidence::WholeRun);
        assert!(none.reason.unwrap().contains("no run showing the class"));
    }

    #[test]
    fn an_unsupported_store_says_why() {
        let mut s = Spectrum::default();
        s.add(
            true,
            Recorded {
                unsupported: Some("no coverage".into()),
                ..Recorded::default()
            },
        );
        assert_eq!(
            localize(&s, Evidence::WholeRun).reason.unwrap(),
            "not localized: no coverage"
        );
    }

    #[test]
    fn ties_are_ordered_by_file_and_line_and_ranked_pessimistically() {
        let s = spectrum(&[(true, false, &[7, 4]), (false, true, &[1])]);
        let loc = localize(&s, Evidence::WholeRun);
        let lines: Vec<u32> = loc.lines.iter().map(|l| l.line).collect();
        assert_eq!(lines, [4, 7]);
        assert_eq!(loc.rank_of("s.ts", 4), Some(2));
        assert_eq!(loc.rank_of("s.ts", 7), Some(2));
        assert_eq!(loc.rank_of("s.ts", 1), None);
    }

    #[test]
    fn a_punctuation_only_line_never_ranks_nor_pushes_the_block_s_statements_down() {
        // Lines 2 and 3 are one block: the statement and its closing brace run together.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("s.ts"),
            "if (x) {\n  m.turnId = undefined;\n}\nrender();\n",
        )
        .unwrap();
        let mut s = spectrum(&[(true, false, &[1, 2, 3, 4]), (false, true, &[1, 4])]);
        s.root = Some(dir.path().to_string_lossy().into_owned());
        let loc = localize(&s, Evidence::WholeRun);
        assert_eq!(loc.rank_of("s.ts", 2), Some(1), "{:?}", loc.lines);
        assert!(loc.lines.iter().all(|l| l.line != 3), "{:?}", loc.lines);
        assert!(punctuation_only("});") && punctuation_only("}"));
        assert!(!punctuation_only("} else {") && !punctuation_only("\"\","));
        assert!(!punctuation_only(""), "an unread line is kept");
    }

    #[test]
    fn classes_sharing_a_best_line_are_one_cause() {
        let at = |line: u32| Localization {
            lines: vec![RankedLine {
                file: "s.ts".into(),
                line,
                score: 1.0,
                text: format!("line {line}"),
            }],
            ..Localization::default()
        };
        let (a, b, c, none) = (at(3), at(8), at(3), Localization::not("x"));
        let grouped = causes([
            ("A".to_string(), &a),
            ("B".to_string(), &b),
            ("C".to_string(), &c),
            ("D".to_string(), &none),
        ]);
        assert_eq!(grouped.len(), 2);
        assert_eq!(grouped[0].at, "s.ts:3");
        assert_eq!(grouped[0].classes, ["A", "C"]);
        assert_eq!(grouped[1].classes, ["B"]);
    }
}
