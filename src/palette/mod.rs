//! The block builder's data: a palette of default instructions per family, the modifier
//! slots of an instruction with only their legal choices, and block edits that rewrite
//! only the lines of the scenario text they touch (the canonical printer where a line edit
//! cannot). UI-free; the app only renders it.

mod edit;
mod error;
mod families;
mod machine;
mod machine_refs;
mod machine_remove;
mod options;
mod splice;

pub use edit::{apply, Edit};
pub use error::EditError;
pub use machine::{Item, MachineEdit, Memory};
pub use families::{catalog, Entry, Family};
pub use options::{slots, Choice, Slot, SlotKind};
/// A free name for a new location or mbarrier (the fix search declares barriers too).
#[cfg(feature = "search")]
pub(crate) use machine_refs::fresh_memory;

#[cfg(test)]
mod machine_tests;
#[cfg(test)]
mod tests;
