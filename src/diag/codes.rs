//! Every diagnostic code with a one-line explanation, so tools can explain a code.

/// A diagnostic code and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    pub code: &'static str,
    pub summary: &'static str,
}

const fn c(code: &'static str, summary: &'static str) -> CodeInfo {
    CodeInfo { code, summary }
}

pub const CODES: &[CodeInfo] = &[
    c("F0001", "the input is larger than the 1 MiB a scenario may have"),
    c("F0002", "the input is not text (NUL byte or invalid UTF-8)"),
    c("F0003", "too many errors; the parser stopped reporting"),
    c("F0004", "more verifier findings than are listed"),
    c("F0101", "a character that is not part of the syntax"),
    c("F0102", "an integer that is malformed or does not fit in 64 bits"),
    c("F0104", "a line outside any thread that is not a declaration"),
    c("F0105", "a token other than the one the syntax requires here"),
    c("F0106", "a name declared twice"),
    c("F0107", "a reference to a CTA that is not declared"),
    c("F0108", "a reference to a cluster that is not declared"),
    c("F0109", "more than one `expect` line"),
    c("F0110", "an `expect` value other than correct, race, deadlock or undefined"),
    c("F0111", "a final condition that does not start with exists, ~exists or forall"),
    c("F0112", "an alias with an unknown target or proxy"),
    c("F0113", "a condition nested deeper than the parser allows"),
    c("F0201", "an unknown instruction"),
    c("F0203", "an unknown modifier, or one the instruction does not take"),
    c("F0204", "a modifier repeated or in conflict with another"),
    c("F0205", "an operand of the wrong kind"),
    c("F0206", "a number outside the range the operand allows"),
    c("F0207", "an instruction whose modifiers or operands do not form a valid PTX form"),
    c("F0301", "a CTA placed in a cluster that does not exist"),
    c("F0302", "a thread, location or mbarrier placed in a CTA that does not exist"),
    c("F0303", "a name that is not an identifier"),
    c("F0304", "a thread with no lanes or more than 1024"),
    c("F0305", "a location of size 0"),
    c("F0306", "an alias whose target is missing, an alias itself, elsewhere, or whose proxy is not an alias proxy"),
    c("F0307", "a final condition naming an unknown thread or location"),
    c("F0308", "an instruction naming an unknown location, mbarrier or label"),
    c("F0309", "an mbarrier used as data, or data used as an mbarrier"),
    c("F0310", "an mbarrier count or tx-count out of range (1 … 2^20 − 1)"),
    c("F0311", "`ld` with release semantics or `st` with acquire semantics"),
    c("F0312", "a strong `ld`/`st` without a scope"),
    c("F0313", "a scope on a weak or volatile access"),
    c("F0314", "`.mmio` without `.sys`"),
    c("F0315", "a state-space qualifier that does not match where the location lives"),
    c("F0316", "a `sync_restrict` fence with the wrong semantics or scope"),
    c("F0317", "an mbarrier operation with semantics or scope it does not take"),
    c("F0318", "`.noComplete` without an explicit count"),
    c("F0319", "an mbarrier wait whose phase operand does not fit its form"),
    c("F0320", "a wait on another CTA's mbarrier (undefined behaviour)"),
    c("F0321", "a local-form mbarrier operation on another CTA's barrier (undefined behaviour)"),
    c("F0322", "an mbarrier operation a peer CTA may not perform, or a state result from a remote-form arrive"),
    c("F0323", "an mbarrier outside the thread's cluster"),
    c("F0324", "a label defined twice in one thread"),
    c("F0325", "a named-barrier id or thread count out of range"),
    c("F0326", "an asynchronous copy whose operands are in the wrong memory"),
    c("F0327", "an asynchronous copy with an invalid byte count"),
    c("F0328", "an `st.async`/`red.async` that breaks the target rules"),
    c("F0329", "an invalid or mixed tcgen05 `cta_group`"),
    c("F0330", "an access to shared memory of a CTA outside the thread's cluster"),
    c("F0331", "a TMEM column count that is not a power of two from 32 to 512"),
    c("F0332", "a wgmma/tcgen05 operand in the wrong memory"),
    c("F0333", "an mbarrier wait with only one of semantics and scope"),
    c("F0334", "an atomic with semantics atomics do not take (e.g. `red.acquire`)"),
    c("F0335", "`ld`/`st` on tensor memory"),
    c("F0341", "`mbarrier.init` on an mbarrier that is already initialised (undefined behaviour)"),
    c("F0401", "an mbarrier that nothing initialises"),
    c("F0402", "a register read before any write"),
    c("F0403", "`.cta` scope on a location that threads of several CTAs access"),
    c("F0404", "a thread reading data after `bar.arrive` without waiting"),
    c("F0405", "a relaxed mbarrier arrive after data writes with no release fence"),
    c("F0406", "a relaxed mbarrier wait before data reads with no acquire fence"),
    c("F0407", "a relaxed `barrier.cluster.arrive` after data writes with no release fence"),
    c("F0408", "a spin-wait on a weak load"),
    c("F0409", "`st.async` into the executing CTA (the spec is ambiguous)"),
    c("F0410", "a copy larger than its source or destination location"),
    c("F0411", "a final condition reading a register its thread never writes"),
    c("F0413", "an mbarrier wait whose result is not used"),
    c("F0501", "`.cluster` scope where every cluster has one CTA (it means the CTA)"),
    c("F0502", "a `.gpu`/`.sys` scope on shared memory (it acts as `.cluster`)"),
];

/// The explanation of `code`, if it is known.
pub fn explain(code: &str) -> Option<&'static str> {
    CODES.iter().find(|c| c.code == code).map(|c| c.summary)
}
