//! Why a block or machine edit was refused. The text is left as it was; the message says
//! what to do instead.

use std::fmt;

use super::machine::Item;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    /// The text has syntax errors, so there is no model to edit.
    Unparsable,
    /// No thread has this index.
    NoThread { thread: usize },
    NoInstruction { thread: usize, at: usize },
    /// A thread was added to a scenario without a CTA to put it in.
    NoCta,
    /// The edit names a declaration the scenario does not have.
    Unknown(Item),
    /// An mbarrier was added with an arrival count of 0.
    ZeroArrivals,
    /// `name` is already in the CTA or cluster `place`.
    AlreadyIn { name: String, place: String },
    AlreadyOwnCluster { cta: String },
    /// A CTA cannot get a cluster of its own: one already has its name.
    ClusterNameTaken { cta: String },
    /// An alias moves with its target, not on its own.
    AliasMoved { alias: String, target: String },
    /// Tensor memory has no global form.
    TmemToGlobal { location: String },
    /// The location is already in the memory it was moved to.
    AlreadyThere { location: String },
    /// A removal refused: `user` names who uses `name`, with its line.
    InUse { name: String, user: String },
    /// A CTA or cluster removal refused: `content` names what is still in it, with its line.
    NotEmpty { name: String, content: String },
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Unparsable => write!(f, "fix the errors in the text first: it does not parse"),
            EditError::NoThread { thread } => write!(f, "there is no thread {thread}"),
            EditError::NoInstruction { thread, at } => write!(f, "thread {thread} has no instruction {at}"),
            EditError::NoCta => write!(f, "declare a `cta` before adding threads"),
            EditError::Unknown(item) => {
                let (kind, name) = match item {
                    Item::Cluster(name) => ("cluster", name),
                    Item::Cta(name) => ("CTA", name),
                    Item::Thread(name) => ("thread", name),
                    Item::Location(name) => ("location", name),
                    Item::Mbarrier(name) => ("mbarrier", name),
                };
                write!(f, "there is no {kind} `{name}`")
            }
            EditError::ZeroArrivals => write!(f, "an mbarrier needs an arrival count of at least 1"),
            EditError::AlreadyIn { name, place } => write!(f, "`{name}` is already in `{place}`"),
            EditError::AlreadyOwnCluster { cta } => write!(f, "`{cta}` is already in a cluster of its own"),
            EditError::ClusterNameTaken { cta } => {
                write!(f, "a cluster is already named `{cta}`, so `{cta}` cannot get a cluster of its own")
            }
            EditError::AliasMoved { alias, target } => {
                write!(f, "`{alias}` is an alias of `{target}`: move `{target}` instead")
            }
            EditError::TmemToGlobal { location } => {
                write!(f, "`{location}` is tensor memory: it can only move to another CTA")
            }
            EditError::AlreadyThere { location } => write!(f, "`{location}` is already there"),
            EditError::InUse { name, user } => write!(f, "`{name}` is used by {user}"),
            EditError::NotEmpty { name, content } => write!(f, "`{name}` still holds {content}"),
        }
    }
}

impl std::error::Error for EditError {}
