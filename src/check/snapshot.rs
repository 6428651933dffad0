//! Build the UI's [`MachineView`] from a machine.

use super::machine::{AgentKind, Layout, Machine, ProxyKey, Status, Via};
use super::semantics::base::{access, exec::agent_name, exec::operand, flow::bar_expected};
use super::semantics::mbarrier;
use super::step::{edge_view, failed_view};
use super::view::{
    ClusterBarrierView, LocationView, MachineView, MbarrierView, NamedBarrierView, RangeView, VisibilityView,
    WaiterView, WriteView,
};
use crate::model::{Instr, MbarKind};

pub fn machine_view(layout: &Layout, m: &Machine) -> MachineView {
    let mut view = MachineView::default();
    for (loc, info) in layout.locs.iter().enumerate() {
        // Byte ranges are parts of their location, not locations of their own.
        if info.mbarrier.is_some() || info.range.is_some() {
            continue;
        }
        let write_view = |w: &crate::check::machine::WriteRec| WriteView {
            value: w.value,
            writer: if w.instr.is_none() { "init".into() } else { agent_name(layout, m, w.event.agent) },
            step: w.step.0,
            proxy: w.key.proxy.name().into(),
        };
        let writes = m.cells.get(info.cell).map_or_else(Vec::new, |c| c.writes.iter().map(|w| write_view(w)).collect());
        let ranges = if info.segs.len() > 1 {
            info.segs
                .iter()
                .filter_map(|cell| {
                    let (start, end) = layout.cell_bytes.get(*cell).copied().flatten()?;
                    let latest = m.cells.get(*cell)?.writes.last().map(|w| write_view(w))?;
                    Some(RangeView { start, end, latest })
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut keys = vec![Via { proxy: info.key, va: info.va }];
        if info.key == ProxyKey::Generic {
            keys.push(Via { proxy: ProxyKey::Async, va: info.va });
        }
        let mut visibility = Vec::new();
        for (i, a) in m.agents.iter().enumerate() {
            if a.status == Status::Done || !matches!(a.kind, AgentKind::Thread(_)) {
                continue;
            }
            for key in &keys {
                visibility.push(VisibilityView {
                    agent: i as u32,
                    agent_name: agent_name(layout, m, i as u32),
                    proxy: key.proxy.name().into(),
                    readable: access::candidates(layout, m, i as u32, loc, *key).collect(),
                });
            }
        }
        view.locations.push(LocationView { name: info.name.clone(), writes, visibility, ranges });
    }
    for (idx, &loc) in layout.mbar_locs.iter().enumerate() {
        let (Some(b), Some(info)) = (m.mbars.get(idx), layout.locs.get(loc)) else { continue };
        let cta = match info.space {
            crate::model::Space::Shared(c) => layout.cta_name(c).to_string(),
            _ => String::new(),
        };
        let waiters = m
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| a.status == Status::Running)
            .filter_map(|(i, _)| {
                let instr = super::semantics::current_instr(layout, m, i as u32)?;
                let Instr::Wait { instr, .. } = instr else { return None };
                let Instr::Mbar(op) = instr.as_ref() else { return None };
                let MbarKind::Wait { phase, .. } = &op.kind else { return None };
                (op.bar == info.name).then(|| WaiterView {
                    thread: agent_name(layout, m, i as u32),
                    parity: operand(m, i as u32, phase),
                })
            })
            .collect();
        let gauge = arrivals_gauge(b);
        view.mbarriers.push(MbarrierView {
            name: info.name.clone(),
            cta,
            initialized: b.valid,
            invalidated: b.invalidated,
            phase: b.phase,
            parity: b.phase & 1,
            pending: b.pending,
            expected: b.expected,
            arrived: gauge.0,
            arrivals_of: gauge.1,
            arrivals_caption: gauge.2,
            tx: b.tx,
            waiters,
            next_arrive: mbarrier::next_arrive(b),
        });
    }
    for ((cta, id), b) in m.bars.iter() {
        view.named_barriers.push(NamedBarrierView {
            cta: layout.cta_name(*cta).to_string(),
            id: *id,
            arrived: b.arrived.iter().map(|(a, _)| agent_name(layout, m, *a)).collect(),
            arrived_count: b.lanes,
            expected_count: bar_expected(layout, m, *cta, b.count),
        });
    }
    for (c, cb) in m.cluster_bars.iter().enumerate() {
        let members: Vec<u32> = m
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| a.place.cluster == c && matches!(a.kind, AgentKind::Thread(_)))
            .map(|(i, _)| i as u32)
            .collect();
        if members.is_empty() {
            continue;
        }
        view.cluster_barriers.push(ClusterBarrierView {
            cluster: layout.cluster_names.get(c).cloned().unwrap_or_default(),
            instance: cb.instance,
            arrived: cb.arrived.iter().map(|a| agent_name(layout, m, *a)).collect(),
            not_arrived: members.iter().filter(|a| !cb.arrived.contains(a)).map(|a| agent_name(layout, m, *a)).collect(),
        });
    }
    view.async_ops = super::semantics::async_op::views(layout, m);
    view.edges = m.trace.0.edges().map(|e| edge_view(layout, m, e)).collect();
    view.failed_edges = m.trace.0.failed().map(|f| failed_view(layout, m, f)).collect();
    view
}

/// The arrivals gauge: `(arrived, of, caption)`. `cp.async.mbarrier.arrive` without
/// `.noinc` raises the pending count at issue (reference §4.3), so pending can exceed the
/// init count; the gauge then counts against the raised total instead of going negative.
fn arrivals_gauge(b: &crate::check::machine::MbarState) -> (i64, i64, String) {
    if !b.valid {
        return (0, 0, format!("no arrivals: the barrier is {}", super::semantics::mbarrier::not_valid(b)));
    }
    let pending = b.pending.max(0);
    if pending <= b.expected {
        let arrived = b.expected - pending;
        return (arrived, b.expected, format!("arrivals: {arrived} of {} ({pending} pending)", b.expected));
    }
    let raised = pending - b.expected;
    (
        0,
        pending,
        format!("arrivals: {pending} pending (count {} raised by {raised} by `cp.async.mbarrier.arrive` without `.noinc`)", b.expected),
    )
}
