//! When the page sends the checker a new text. An idle checker gets an edit at once; while
//! a check runs, or within a short window after the last request, edits are merged so only
//! the newest one is checked next (never more than one waits). A check that has already run
//! for a while is abandoned for a newer edit instead of being waited for. Plain data and
//! numbers, so the policy is tested natively; the caller owns the clock and the timers.

/// Typing edits closer than this to the last request wait and merge (ms).
pub const TYPING_WINDOW_MS: f64 = 40.0;
/// A running check younger than this is let finish before a newer edit goes out; an older
/// one is abandoned, since its answer is for a text the user no longer has (ms).
pub const PATIENCE_MS: f64 = 150.0;

/// What the caller should do now.
#[derive(Debug, PartialEq)]
pub enum Next<J> {
    /// Send this job to the idle checker.
    Send(J),
    /// Stop the running check (it is outdated) and send this job instead.
    Restart(J),
    /// Ask again (`wake`) at this time.
    WakeAt(f64),
    /// Nothing to do.
    Idle,
}

struct Waiting<J> {
    job: J,
    /// Some merged edit was not typing (a template, a block action, a mode switch).
    urgent: bool,
}

/// The dispatch policy's state: whether the checker is busy and the newest unsent job.
pub struct Coalescer<J> {
    busy_since: Option<f64>,
    last_sent: Option<f64>,
    waiting: Option<Waiting<J>>,
}

impl<J> Default for Coalescer<J> {
    fn default() -> Self {
        Coalescer { busy_since: None, last_sent: None, waiting: None }
    }
}

impl<J> Coalescer<J> {
    /// A new text (or mode) to check; it replaces any job still waiting.
    pub fn edit(&mut self, job: J, typing: bool, now: f64) -> Next<J> {
        let urgent = !typing || self.waiting.as_ref().is_some_and(|w| w.urgent);
        self.waiting = Some(Waiting { job, urgent });
        self.decide(now)
    }

    /// A timer asked for by `WakeAt` fired.
    pub fn wake(&mut self, now: f64) -> Next<J> {
        self.decide(now)
    }

    /// The checker answered (or failed): it is idle again.
    pub fn finished(&mut self, now: f64) -> Next<J> {
        self.busy_since = None;
        self.decide(now)
    }

    /// The job just sent was answered without the checker (the build's report of the
    /// starter scenario): the checker is idle, and the next edit goes out at once.
    pub fn answered_elsewhere(&mut self) {
        self.busy_since = None;
    }

    /// The text has errors: a waiting job is no longer wanted.
    pub fn drop_waiting(&mut self) {
        self.waiting = None;
    }

    /// The user stopped the check: the checker is fresh and nothing waits.
    pub fn cancelled(&mut self) {
        self.busy_since = None;
        self.waiting = None;
    }

    fn decide(&mut self, now: f64) -> Next<J> {
        let Some(urgent) = self.waiting.as_ref().map(|w| w.urgent) else { return Next::Idle };
        if let Some(sent) = self.last_sent.filter(|sent| !urgent && now - sent < TYPING_WINDOW_MS) {
            return Next::WakeAt(sent + TYPING_WINDOW_MS);
        }
        let restart = match self.busy_since {
            None => false,
            Some(since) if now - since >= PATIENCE_MS => true,
            Some(since) => return Next::WakeAt(since + PATIENCE_MS),
        };
        let Some(Waiting { job, .. }) = self.waiting.take() else { return Next::Idle };
        self.busy_since = Some(now);
        self.last_sent = Some(now);
        if restart { Next::Restart(job) } else { Next::Send(job) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_checker_gets_the_edit_at_once() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("a", true, 0.0), Next::Send("a"));
        assert_eq!(c.edit("b", false, 1.0), Next::WakeAt(PATIENCE_MS), "busy now");
    }

    #[test]
    fn a_typing_burst_sends_the_first_and_then_only_the_newest() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("a", true, 0.0), Next::Send("a"));
        assert_eq!(c.finished(3.0), Next::Idle);
        assert_eq!(c.edit("ab", true, 10.0), Next::WakeAt(TYPING_WINDOW_MS));
        assert_eq!(c.edit("abc", true, 20.0), Next::WakeAt(TYPING_WINDOW_MS));
        assert_eq!(c.wake(TYPING_WINDOW_MS), Next::Send("abc"));
        assert_eq!(c.finished(TYPING_WINDOW_MS + 2.0), Next::Idle, "nothing left: `ab` is never checked");
    }

    #[test]
    fn a_non_typing_edit_skips_the_typing_window() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("typed", true, 0.0), Next::Send("typed"));
        c.finished(1.0);
        assert_eq!(c.edit("template", false, 2.0), Next::Send("template"));
    }

    #[test]
    fn edits_during_a_young_check_wait_for_its_answer_and_merge() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("a", false, 0.0), Next::Send("a"));
        assert_eq!(c.edit("b", true, 50.0), Next::WakeAt(PATIENCE_MS));
        assert_eq!(c.edit("c", false, 60.0), Next::WakeAt(PATIENCE_MS));
        assert_eq!(c.finished(70.0), Next::Send("c"));
        assert_eq!(c.finished(75.0), Next::Idle);
    }

    #[test]
    fn an_edit_after_a_job_answered_elsewhere_goes_out_at_once() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("starter", false, 0.0), Next::Send("starter"));
        c.answered_elsewhere();
        assert_eq!(c.edit("link", false, 1.0), Next::Send("link"), "not a wait for a check that is not running");
        assert_eq!(c.edit("mode", false, 2.0), Next::WakeAt(PATIENCE_MS + 1.0), "the link's check runs");
    }

    #[test]
    fn a_long_check_is_abandoned_for_a_newer_edit() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("slow", false, 0.0), Next::Send("slow"));
        assert_eq!(c.edit("newer", true, 100.0), Next::WakeAt(PATIENCE_MS));
        assert_eq!(c.wake(PATIENCE_MS), Next::Restart("newer"));
        assert_eq!(c.edit("newest", false, 400.0), Next::Restart("newest"), "the restarted check is old too");
    }

    #[test]
    fn typing_waits_out_the_window_even_when_a_check_is_old() {
        let mut c = Coalescer::default();
        assert_eq!(c.edit("slow", false, 0.0), Next::Send("slow"));
        assert_eq!(c.edit("x", true, 200.0), Next::Restart("x"));
        assert_eq!(c.edit("xy", true, 210.0), Next::WakeAt(200.0 + TYPING_WINDOW_MS));
        assert_eq!(c.wake(200.0 + TYPING_WINDOW_MS), Next::WakeAt(200.0 + PATIENCE_MS));
        assert_eq!(c.wake(200.0 + PATIENCE_MS), Next::Restart("xy"));
    }

    #[test]
    fn an_early_wake_asks_again_later() {
        let mut c = Coalescer::default();
        c.edit("a", true, 0.0);
        c.finished(1.0);
        c.edit("b", true, 5.0);
        assert_eq!(c.wake(20.0), Next::WakeAt(TYPING_WINDOW_MS));
        assert_eq!(c.wake(100.0), Next::Send("b"));
    }

    #[test]
    fn cancel_and_errors_drop_the_waiting_job() {
        let mut c = Coalescer::default();
        c.edit("a", false, 0.0);
        c.edit("b", false, 10.0);
        c.cancelled();
        assert_eq!(c.wake(500.0), Next::Idle);
        assert_eq!(c.edit("fresh", false, 550.0), Next::Send("fresh"), "idle after cancel");
        c.finished(560.0);
        c.edit("c", false, 600.0);
        c.edit("d", false, 601.0);
        c.drop_waiting();
        assert_eq!(c.finished(602.0), Next::Idle);
    }
}
