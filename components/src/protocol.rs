//! Messages between the page and the checker worker: JSON strings both ways, so the
//! worker needs no shared memory and a malformed message is just an error reply.

use fencelab::check::{check, Options, Report};
use fencelab::model::Scenario;
use serde::{Deserialize, Serialize};

/// Page → worker: check this scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRequest {
    /// Echoed in the reply, so the page can drop answers to stale requests.
    pub id: u64,
    pub scenario: Scenario,
    pub options: Options,
}

/// Worker → page.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum CheckReply {
    /// The worker has loaded and listens; requests sent before this would be lost.
    Ready,
    Done { id: u64, report: Report },
    /// The request could not be read (a bug in the page, never the user's fault).
    Invalid { message: String },
}

/// The worker's whole job: one request text in, one reply text out.
pub fn answer(request: &str) -> String {
    let reply = match serde_json::from_str::<CheckRequest>(request) {
        Ok(req) => CheckReply::Done { id: req.id, report: check(&req.scenario, &req.options) },
        Err(err) => CheckReply::Invalid { message: format!("unreadable check request: {err}") },
    };
    encode(&reply)
}

pub fn encode(reply: &CheckReply) -> String {
    // Serializing plain data with string keys cannot fail; fall back to a readable error.
    serde_json::to_string(reply).unwrap_or_else(|err| {
        format!(r#"{{"Invalid":{{"message":"fencelab internal bug: reply not serializable: {err}"}}}}"#)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_request_gets_an_invalid_reply() {
        let reply: CheckReply = serde_json::from_str(&answer("{not json")).expect("reply is json");
        assert!(matches!(reply, CheckReply::Invalid { message } if message.contains("unreadable")));
    }

    #[test]
    fn ready_round_trips() {
        let reply: CheckReply = serde_json::from_str(&encode(&CheckReply::Ready)).expect("json");
        assert!(matches!(reply, CheckReply::Ready));
    }
}
