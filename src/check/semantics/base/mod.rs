//! The machinery every instruction family shares. No module here imports a family; listed
//! from the bottom up, each imports only modules before it:
//! - [`exec`]: the execution context a step runs in, operand values, agent names, the mode;
//! - [`sync`]: the causality table (which operations release and acquire, and when a pair
//!   synchronizes);
//! - [`tc_explain`] and [`race`]: what a race is missing;
//! - [`tc_commit`]: which `tcgen05.commit` tracks an operation, and whom it signals;
//! - [`access`]: reads, writes and the race check, and the release/acquire patterns strong
//!   accesses form;
//! - [`async_agent`]: spawning asynchronous agents, their stages, what a completion publishes;
//! - [`exit`]: CTA exit (a peer's later access to its shared memory, TMEM still held);
//! - [`completion`]: complete-tx and arrive-on performed by asynchronous agents;
//! - [`flow`]: moving the pc, a thread's end, and `bar`/`barrier.cluster` completion.

pub mod access;
pub mod async_agent;
pub mod completion;
pub mod exec;
pub mod exit;
pub mod flow;
pub mod race;
pub mod sync;
pub mod tc_commit;
pub mod tc_explain;
