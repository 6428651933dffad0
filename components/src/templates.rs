//! Starting points for "new scenario": the project's templates (`tests/scenarios/templates`,
//! shared with the link tests) plus two message-passing examples kept with the app.

/// One template: a title for the menu and the `.fence` text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Template {
    pub id: &'static str,
    pub source: &'static str,
}

impl Template {
    /// The title line of the text (its first `#` comment), else the id.
    pub fn title(&self) -> &'static str {
        self.source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix('#'))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(self.id)
    }
}

macro_rules! template {
    ($id:literal, $path:literal) => {
        Template { id: $id, source: include_str!($path) }
    };
}

pub const TEMPLATES: &[Template] = &[
    template!("mp-relaxed", "../templates/mp-relaxed.fence"),
    template!("mp-release-acquire", "../templates/mp-release-acquire.fence"),
    template!("intra-cta-mbarrier", "../../tests/scenarios/templates/intra-cta-mbarrier.fence"),
    template!("cluster-handoff", "../../tests/scenarios/templates/cluster-handoff.fence"),
    template!("gpu-flag", "../../tests/scenarios/templates/gpu-flag.fence"),
    template!("tma-load", "../../tests/scenarios/templates/tma-load.fence"),
    template!("tma-store", "../../tests/scenarios/templates/tma-store.fence"),
    template!("tma-wgmma-pipeline", "../../tests/scenarios/templates/tma-wgmma-pipeline.fence"),
];

pub fn find(id: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_loads_without_errors_and_has_a_title() {
        for t in TEMPLATES {
            let loaded = fencelab::load(t.source);
            assert!(!loaded.has_errors(), "{}: {:?}", t.id, loaded.diagnostics);
            assert_ne!(t.title(), t.id, "{} has a title line", t.id);
        }
    }

    #[test]
    fn ids_are_unique_and_findable() {
        for t in TEMPLATES {
            assert_eq!(find(t.id), Some(t));
        }
        assert_eq!(find("nope"), None);
    }

    #[test]
    fn message_passing_examples_get_the_verdicts_they_teach() {
        use fencelab::check::{check, Options, Verdict};
        let verdict = |id: &str| {
            let t = find(id).expect("template");
            check(&fencelab::load(t.source).scenario, &Options::default()).verdict
        };
        assert_eq!(verdict("mp-relaxed"), Verdict::Race);
        assert_eq!(verdict("mp-release-acquire"), Verdict::Correct);
    }
}
