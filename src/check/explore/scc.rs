//! Terminal strongly connected components of the explored state graph (iterative Tarjan):
//! a terminal component with a cycle is a set of states the execution can never leave.

/// The explored graph's edges in one array. The explorer expands states in id order, so
/// each state's successors are one contiguous run: a list per state would cost a vector
/// (and an allocation) per state.
#[derive(Default)]
pub struct Successors {
    /// Where each expanded state's run starts in `targets`.
    start: Vec<usize>,
    targets: Vec<u32>,
}

impl Successors {
    /// Starts the run of `state`, expanded after every state with a smaller id.
    pub fn begin(&mut self, state: u32) {
        while self.start.len() <= state as usize {
            self.start.push(self.targets.len());
        }
    }

    /// Adds an edge from the state begun last.
    pub fn push(&mut self, target: u32) {
        self.targets.push(target);
    }

    fn of(&self, state: usize) -> &[u32] {
        let Some(&from) = self.start.get(state) else { return &[] };
        let to = self.start.get(state + 1).copied().unwrap_or(self.targets.len());
        self.targets.get(from..to).unwrap_or(&[])
    }

    /// Heap bytes per edge, for the explorer's memory estimate.
    pub const EDGE_BYTES: usize = std::mem::size_of::<u32>();
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

    fn graph(lists: &[&[u32]]) -> Successors {
        let mut succs = Successors::default();
        for (state, targets) in lists.iter().enumerate() {
            succs.begin(state as u32);
            targets.iter().for_each(|&t| succs.push(t));
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
        succs.push(2);
        succs.begin(2);
        succs.push(3);
        succs.begin(3);
        succs.push(2);
        assert_eq!(closed_cycles(&succs), vec![vec![2, 3]]);
    }
}
