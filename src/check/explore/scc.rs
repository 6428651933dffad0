//! Terminal strongly connected components of the explored state graph (iterative Tarjan):
//! a terminal component with a cycle is a set of states the execution can never leave.

use crate::schedule::Step;

/// The explored graph's edges in one array. The explorer expands states in id order, so
/// each state's successors are one contiguous run: a list per state would cost a vector
/// (and an allocation) per state.
#[derive(Default)]
pub struct Successors {
    /// Where each expanded state's run starts in `targets`.
    start: Vec<usize>,
    targets: Vec<u32>,
    /// The step of each edge, beside its target: a hang's witness goes round its cycle.
    steps: Vec<Step>,
}

impl Successors {
    /// Starts the run of `state`, expanded after every state with a smaller id.
    pub fn begin(&mut self, state: u32) {
        while self.start.len() <= state as usize {
            self.start.push(self.targets.len());
        }
    }

    /// Adds an edge from the state begun last, taken by `step`.
    pub fn push(&mut self, target: u32, step: Step) {
        self.targets.push(target);
        self.steps.push(step);
    }

    fn range(&self, state: usize) -> std::ops::Range<usize> {
        let Some(&from) = self.start.get(state) else { return 0..0 };
        let to = self.start.get(state + 1).copied().unwrap_or(self.targets.len());
        from..to
    }

    fn of(&self, state: usize) -> &[u32] {
        self.targets.get(self.range(state)).unwrap_or(&[])
    }

    /// The steps that lead from `entry` round a cycle back to it, shortest first found
    /// (breadth-first); empty when no edge returns to `entry`.
    pub fn cycle_through(&self, entry: u32) -> Vec<Step> {
        let mut came: std::collections::HashMap<u32, (u32, Step)> = std::collections::HashMap::new();
        let mut frontier = std::collections::VecDeque::from([entry]);
        while let Some(at) = frontier.pop_front() {
            let range = self.range(at as usize);
            let edges = self.targets.get(range.clone()).unwrap_or(&[]).iter().zip(self.steps.get(range).unwrap_or(&[]));
            for (&to, &step) in edges {
                if to == entry {
                    let mut steps = vec![step];
                    let mut back = at;
                    while back != entry {
                        let Some(&(from, step)) = came.get(&back) else { break };
                        steps.push(step);
                        back = from;
                    }
                    steps.reverse();
                    return steps;
                }
                if let std::collections::hash_map::Entry::Vacant(slot) = came.entry(to) {
                    slot.insert((at, step));
                    frontier.push_back(to);
                }
            }
        }
        Vec::new()
    }

    /// Heap bytes per edge, for the explorer's memory estimate.
    pub const EDGE_BYTES: usize = std::mem::size_of::<u32>() + std::mem::size_of::<Step>();
    /// Heap bytes per expanded state.
    pub const STATE_BYTES: usize = std::mem::size_of::<usize>();
}

/// Components (as node lists) with no edge leaving them and at least one internal edge.
pub fn closed_cycles(succs: &Successors) -> Vec<Vec<u32>> {
    let n = succs.start.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut comp = vec![u32::MAX; n];
    let mut comps: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    for root in 0..n as u32 {
        if index.get(root as usize) != Some(&u32::MAX) {
            continue;
        }
        let mut call: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut child)) = call.last_mut() {
            let vi = v as usize;
            if *child == 0 && index[vi] == u32::MAX {
                index[vi] = next;
                low[vi] = next;
                next += 1;
                stack.push(v);
                on_stack[vi] = true;
            }
            let edges = succs.of(vi);
            if let Some(&w) = edges.get(*child) {
                *child += 1;
                let wi = w as usize;
                if index.get(wi) == Some(&u32::MAX) {
                    call.push((w, 0));
                } else if on_stack.get(wi) == Some(&true) {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                let pi = parent as usize;
                low[pi] = low[pi].min(low[vi]);
            }
            if low[vi] == index[vi] {
                let id = comps.len() as u32;
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[w as usize] = id;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(members);
            }
        }
    }
    comps
        .into_iter()
        .enumerate()
        .filter(|(id, members)| {
            let id = *id as u32;
            let closed = members.iter().all(|&v| {
                succs.of(v as usize).iter().all(|&w| comp.get(w as usize) == Some(&id))
            });
            let cyclic = members.len() > 1 || members.iter().any(|&v| succs.of(v as usize).contains(&v));
            closed && cyclic
        })
        .map(|(_, mut members)| {
            crate::sort::sort(&mut members);
            members
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{closed_cycles, Successors};
    use crate::schedule::Step;

    fn step(agent: u32) -> Step {
        Step { agent, choice: 0 }
    }

    fn graph(lists: &[&[u32]]) -> Successors {
        let mut succs = Successors::default();
        for (state, targets) in lists.iter().enumerate() {
            succs.begin(state as u32);
            targets.iter().for_each(|&t| succs.push(t, step(t)));
        }
        succs
    }

    #[test]
    fn finds_only_closed_cycles() {
        // 0 → 1 ⇄ 2 (closed), 0 → 3 → 4 ⇄ 3? no: 3 → 4, 4 → 3 and 4 → 5 (open).
        let succs = graph(&[&[1, 3], &[2], &[1], &[4], &[3, 5], &[]]);
        assert_eq!(closed_cycles(&succs), vec![vec![1, 2]]);
        assert_eq!(closed_cycles(&graph(&[&[0]])), vec![vec![0]]);
        assert!(closed_cycles(&graph(&[&[1], &[]])).is_empty());
    }

    #[test]
    fn states_skipped_in_expansion_have_no_successors() {
        // State 1 was never begun (a terminal state): 0 → 2 ⇄ 3 is still found.
        let mut succs = Successors::default();
        succs.begin(0);
        succs.push(2, step(2));
        succs.begin(2);
        succs.push(3, step(3));
        succs.begin(3);
        succs.push(2, step(2));
        assert_eq!(closed_cycles(&succs), vec![vec![2, 3]]);
    }

    #[test]
    fn a_cycle_returns_to_its_entry_by_the_shortest_way() {
        // 1 → 2 → 3 → 1 and 1 → 4 → 1: the way through 4 is shorter.
        let succs = graph(&[&[], &[2, 4], &[3], &[1], &[1]]);
        assert_eq!(succs.cycle_through(1), vec![step(4), step(1)]);
        assert_eq!(succs.cycle_through(2), vec![step(3), step(1), step(2)]);
        assert!(graph(&[&[1], &[]]).cycle_through(0).is_empty());
    }
}
