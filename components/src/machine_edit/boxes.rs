//! The edit-mode toolbars of the machine's boxes: what may be added to the GPU, a
//! cluster and a CTA, and the CTA's or cluster's own move/remove controls.

use fencelab::palette::{Item, MachineEdit, Memory};
use leptos::prelude::*;

use super::{add_button, cta_targets, item_controls, Editing};
use crate::layout::ClusterBox;

/// "+ cluster", "+ CTA" (in a cluster of its own) and "+ global location".
pub fn gpu_controls(e: Editing) -> impl IntoView {
    let ctx = e.ctx;
    view! {
        <div class="medit-bar" role="toolbar" aria-label="Add to the GPU">
            {add_button(ctx, "+ cluster", "Add a cluster".into(), MachineEdit::AddCluster)}
            {add_button(ctx, "+ CTA", "Add a CTA in a cluster of its own".into(), MachineEdit::AddCta { cluster: None })}
            {add_button(ctx, "+ global location", "Add a global location".into(), MachineEdit::AddLocation { memory: Memory::Global })}
        </div>
    }
}

/// "+ CTA" in this cluster; a declared cluster's remove button in its corner.
pub fn cluster_controls(e: Editing, cluster: &ClusterBox) -> impl IntoView {
    let name = cluster.name.clone();
    let add = MachineEdit::AddCta { cluster: Some(name.clone()) };
    view! {
        <div class="medit-bar" role="toolbar" aria-label=format!("Edit cluster {name}")>
            {add_button(e.ctx, "+ CTA", format!("Add a CTA to cluster {name}"), add)}
        </div>
        // A cluster of one goes away with its CTA; only a declared cluster is removed on its own.
        {(!cluster.implicit).then(|| view! {
            <div class="medit-corner">{item_controls(e.ctx, format!("cluster {name}"), Vec::new(), Item::Cluster(name.clone()))}</div>
        })}
    }
}

/// "+ thread", "+ shared location", "+ mbarrier"; the CTA's "Move to…" and remove in its corner.
pub fn cta_controls(e: Editing, cta: &str) -> impl IntoView {
    let ctx = e.ctx;
    let targets = cta_targets(&e.scenario, cta);
    view! {
        <div class="medit-bar" role="toolbar" aria-label=format!("Edit CTA {cta}")>
            {add_button(ctx, "+ thread", format!("Add a thread to CTA {cta}"), MachineEdit::AddThread { cta: cta.to_string() })}
            {add_button(ctx, "+ shared location", format!("Add a shared location to CTA {cta}"),
                MachineEdit::AddLocation { memory: Memory::Shared(cta.to_string()) })}
            {add_button(ctx, "+ mbarrier", format!("Add an mbarrier (count 1) to CTA {cta}"),
                MachineEdit::AddMbarrier { cta: cta.to_string(), count: 1 })}
        </div>
        <div class="medit-corner">{item_controls(ctx, format!("CTA {cta}"), targets, Item::Cta(cta.to_string()))}</div>
    }
}
