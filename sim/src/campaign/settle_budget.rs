//! How long settling what a campaign found may take: the recheck, shrinking and the needs
//! searches after `fuzz`'s or `check`'s runs.
//!
//! Settling a class costs replays, and through an adapter (`exec:`, or a JavaScript store
//! inside the engine) a replay costs round trips: a campaign of a few minutes on a real
//! store once spent a quarter of an hour settling what it found. A gate or a person at a
//! terminal will not wait for that, so by default settling takes at most as long as the
//! campaign did ([`SettleBudget::AsCampaign`]), and never less than [`SETTLE_FLOOR`] (a
//! campaign of a few seconds still gets its findings shrunk). Within the budget every
//! class is rechecked and shrunk before any needs search begins (`campaign::recheck`), so
//! a tight budget costs a finding its smallest world first, then its 1-minimality; what
//! was not finished is reported as such (`+` on the steps, `needs?`), never hidden.

use std::time::{Duration, Instant};

/// The least time settling gets by default, however short the campaign: 30 s, what the
/// shipped stores need on a loaded two-core machine to shrink every class of a few
/// thousand seeds (in-process shrinking takes milliseconds a class; an adapter's, about a
/// second).
pub const SETTLE_FLOOR: Duration = Duration::from_secs(30);

/// How long settling may take (`--settle-time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SettleBudget {
    /// As long as the campaign took, and at least [`SETTLE_FLOOR`] (the default).
    #[default]
    AsCampaign,
    /// This long.
    Fixed(Duration),
    /// No limit but the per-finding ones (`--max-shrink-time`, `--max-shrink-iters`):
    /// every class settled to the end, as before budgets (`--settle-time unbounded`).
    Unbounded,
}

impl SettleBudget {
    /// Parse what `--settle-time` takes: `campaign` (the default), `unbounded`, or a
    /// duration (`90s`, `5m`).
    pub fn parse(text: &str) -> Result<SettleBudget, String> {
        match text.trim() {
            "campaign" => Ok(SettleBudget::AsCampaign),
            "unbounded" | "none" => Ok(SettleBudget::Unbounded),
            t => humantime::parse_duration(t).map(SettleBudget::Fixed).map_err(|e| {
                format!(
                    "--settle-time {t}: {e} (expected a duration such as 90s or 5m, `campaign` or `unbounded`)"
                )
            }),
        }
    }

    /// How long settling may take after a campaign that took `campaign`; `None` without a
    /// limit.
    pub fn allowance(self, campaign: Duration) -> Option<Duration> {
        match self {
            SettleBudget::AsCampaign => Some(campaign.max(SETTLE_FLOOR)),
            SettleBudget::Fixed(d) => Some(d),
            SettleBudget::Unbounded => None,
        }
    }

    /// When settling must end if it starts at `start` after a campaign that took
    /// `campaign`, and the command's own deadline (`--time`) allows: the earlier of the two.
    pub fn deadline(
        self,
        campaign: Duration,
        start: Instant,
        command: Option<Instant>,
    ) -> Option<Instant> {
        let own = self.allowance(campaign).map(|d| start + d);
        match (own, command) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// In words, for the report: `as long as the campaign (at least 30 s)`, `5m`,
    /// `unbounded`.
    pub fn describe(self) -> String {
        match self {
            SettleBudget::AsCampaign => format!(
                "as long as the campaign, at least {} s; --settle-time changes it",
                SETTLE_FLOOR.as_secs()
            ),
            SettleBudget::Fixed(d) => format!("--settle-time {}", humantime::format_duration(d)),
            SettleBudget::Unbounded => "unbounded (--settle-time unbounded)".to_string(),
        }
    }
}

/// How a command's time went: its campaign, then settling what it found, within the
/// budget. What `fuzz` and `check` print under their table and in `--json`
/// (`campaign_seconds`, `settle_seconds`, `settle_budget_seconds`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// The campaign's runs.
    pub campaign: Duration,
    /// Settling: recheck, shrinking, needs searches (and the determinism check).
    pub settle: Duration,
    /// The time settling was allowed (`None`: unbounded).
    pub settle_budget: Option<Duration>,
    /// How the budget was chosen.
    pub budget: SettleBudget,
}

impl Timing {
    /// One line for the first screen: `time: campaign 12.3 s, settling 4.1 s of 30 s (as
    /// long as the campaign, at least 30 s)`.
    pub fn line(&self) -> String {
        let allowed = match self.settle_budget {
            Some(b) => format!(" of {:.0} s", b.as_secs_f64()),
            None => String::new(),
        };
        format!(
            "time: campaign {:.1} s, settling {:.1} s{allowed} ({})",
            self.campaign.as_secs_f64(),
            self.settle.as_secs_f64(),
            self.budget.describe()
        )
    }

    /// The fields `--json` carries.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "campaign_seconds": round_ms(self.campaign),
            "settle_seconds": round_ms(self.settle),
            "settle_budget_seconds": self.settle_budget.map(round_ms),
        })
    }
}

/// Seconds, to the millisecond.
fn round_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_allows_as_long_as_the_campaign_and_at_least_the_floor() {
        let b = SettleBudget::default();
        assert_eq!(
            b.allowance(Duration::from_secs(240)),
            Some(Duration::from_secs(240))
        );
        assert_eq!(b.allowance(Duration::from_secs(2)), Some(SETTLE_FLOOR));
        assert_eq!(
            SettleBudget::Unbounded.allowance(Duration::from_secs(2)),
            None
        );
        assert_eq!(
            SettleBudget::Fixed(Duration::from_secs(5)).allowance(Duration::from_secs(600)),
            Some(Duration::from_secs(5))
        );
    }

    #[test]
    fn the_deadline_is_the_earlier_of_the_budget_and_the_command_s() {
        let start = Instant::now();
        let campaign = Duration::from_secs(100);
        let b = SettleBudget::AsCampaign;
        assert_eq!(b.deadline(campaign, start, None), Some(start + campaign));
        let sooner = start + Duration::from_secs(7);
        assert_eq!(b.deadline(campaign, start, Some(sooner)), Some(sooner));
        let later = start + Duration::from_secs(700);
        assert_eq!(
            b.deadline(campaign, start, Some(later)),
            Some(start + campaign)
        );
        assert_eq!(
            SettleBudget::Unbounded.deadline(campaign, start, None),
            None
        );
        assert_eq!(
            SettleBudget::Unbounded.deadline(campaign, start, Some(later)),
            Some(later)
        );
    }

    #[test]
    fn parse_takes_campaign_unbounded_and_durations_and_names_a_bad_value() {
        assert_eq!(
            SettleBudget::parse("campaign"),
            Ok(SettleBudget::AsCampaign)
        );
        assert_eq!(
            SettleBudget::parse("unbounded"),
            Ok(SettleBudget::Unbounded)
        );
        assert_eq!(
            SettleBudget::parse("90s"),
            Ok(SettleBudget::Fixed(Duration::from_secs(90)))
        );
        let err = SettleBudget::parse("soon").unwrap_err();
        assert!(
            err.contains("--settle-time soon") && err.contains("unbounded"),
            "{err}"
        );
    }

    #[test]
    fn the_timing_line_and_json_say_both_times_and_the_budget() {
        let t = Timing {
            campaign: Duration::from_millis(12_340),
            settle: Duration::from_millis(4_100),
            settle_budget: Some(Duration::from_secs(30)),
            budget: SettleBudget::AsCampaign,
        };
        assert_eq!(
            t.line(),
            "time: campaign 12.3 s, settling 4.1 s of 30 s (as long as the campaign, at least 30 s; --settle-time changes it)"
        );
        let j = t.json();
        assert_eq!(j["campaign_seconds"], 12.34);
        assert_eq!(j["settle_seconds"], 4.1);
        assert_eq!(j["settle_budget_seconds"], 30.0);
    }
}
