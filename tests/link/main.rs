//! Share links: round trips, every error, and the frozen links of each format.

mod arb_scenario;
mod errors;
mod roundtrip;
mod samples;
