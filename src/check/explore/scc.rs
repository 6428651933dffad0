//! Terminal strongly connected components of the explored state graph (iterative Tarjan):
//! a terminal component with a cycle is a set of states the execution can never leave.

/// Components (as node lists) with no edge leaving them and at least one internal edge.
pub fn closed_cycles(succs: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let n = succs.len();
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
            let edges = succs.get(vi).map_or(&[][..], |e| e.as_slice());
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
                succs.get(v as usize).is_none_or(|e| e.iter().all(|&w| comp.get(w as usize) == Some(&id)))
            });
            let cyclic = members.len() > 1
                || members.iter().any(|&v| succs.get(v as usize).is_some_and(|e| e.contains(&v)));
            closed && cyclic
        })
        .map(|(_, mut members)| {
            members.sort_unstable();
            members
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::closed_cycles;

    #[test]
    fn finds_only_closed_cycles() {
        // 0 → 1 ⇄ 2 (closed), 0 → 3 → 4 ⇄ 3? no: 3 → 4, 4 → 3 and 4 → 5 (open).
        let succs = vec![vec![1, 3], vec![2], vec![1], vec![4], vec![3, 5], vec![]];
        assert_eq!(closed_cycles(&succs), vec![vec![1, 2]]);
        assert_eq!(closed_cycles(&[vec![0]]), vec![vec![0]]);
        assert!(closed_cycles(&[vec![1], vec![]]).is_empty());
    }
}
