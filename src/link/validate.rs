//! Structural checks on a decoded scenario: every index points at something.
//!
//! The model refers to clusters and CTAs by index. A scenario built by the parser always
//! gets these right; one decoded from a hostile link may not, and an out-of-range index
//! would confuse the checker and the UI later. Names are not checked:
//! the checker resolves them and reports unknown ones.

use crate::model::{Scenario, Space};
use crate::syntax::Comment;

/// Returns why `scenario` is structurally impossible, if it is.
pub fn structural_problem(scenario: &Scenario) -> Option<String> {
    let clusters = scenario.clusters.len();
    let ctas = scenario.ctas.len();
    let cta_problem = |what: String, cta: usize| {
        (cta >= ctas)
            .then(|| format!("{what} is placed in CTA {cta}, but there are only {ctas} CTAs"))
    };
    for cta in &scenario.ctas {
        if cta.cluster >= clusters {
            return Some(format!(
                "CTA `{}` is in cluster {}, but there are only {clusters} clusters",
                cta.name, cta.cluster
            ));
        }
    }
    for thread in &scenario.threads {
        if let Some(problem) = cta_problem(format!("thread `{}`", thread.name), thread.cta) {
            return Some(problem);
        }
    }
    for location in &scenario.locations {
        if let Space::Shared(cta) | Space::Tmem(cta) = location.space {
            if let Some(problem) = cta_problem(format!("location `{}`", location.name), cta) {
                return Some(problem);
            }
        }
    }
    for mbarrier in &scenario.mbarriers {
        if let Some(problem) = cta_problem(format!("mbarrier `{}`", mbarrier.name), mbarrier.cta) {
            return Some(problem);
        }
    }
    None
}

/// Longest comment a link may carry; a real note is a line or two.
pub const MAX_COMMENT_CHARS: usize = 2000;

/// Returns why a link's comments cannot be shown as comments, if one cannot. A line break
/// would let a comment print as program text that the scenario does not hold.
pub fn comments_problem(comments: &[Comment]) -> Option<String> {
    comments.iter().find_map(|c| {
        if c.text.contains(['\n', '\r']) {
            Some("a comment spans several lines".to_string())
        } else if c.text.chars().count() > MAX_COMMENT_CHARS {
            Some(format!("a comment is longer than {MAX_COMMENT_CHARS} characters"))
        } else {
            None
        }
    })
}
