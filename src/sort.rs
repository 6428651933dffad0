//! Stable sorting without the standard library's sorts. `slice::sort_by_key` and friends
//! are instantiated per element type and key, each a few KiB of wasm (driftsort). Code
//! outside the checker's inner loop (fix search, diagnostics, cost tables, the app) sorts
//! a permutation with one shared merge sort instead, so each call site adds only a key
//! function and a reordering loop; the checker's short lists use [`short_by_key`]. Same
//! results as the standard stable sorts.

use std::cmp::Ordering;

/// Sorts `items` by `key`, keeping equal keys in their order (like `slice::sort_by_key`,
/// but each key is computed once).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    let keys: Vec<K> = items.iter().map(key).collect();
    let order = stable_order(keys.len(), &|a, b| keys[a].cmp(&keys[b]));
    permute(items, order);
}

/// Sorts a short, nearly sorted `items` by `key`, keeping equal keys in their order: an
/// insertion sort, a few instructions per call site. For the checker's inner loop, whose
/// lists (an agent's pending releases, a cell's latest reads, the agents to rename) hold a
/// handful of entries and gain one at a time; quadratic on long unsorted input.
pub fn short_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    for sorted in 1..items.len() {
        let mut at = sorted;
        while at > 0 && key(&items[at - 1]) > key(&items[at]) {
            items.swap(at - 1, at);
            at -= 1;
        }
    }
}

/// Sorts `items` by `compare`, keeping equal elements in their order (like `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` in ascending order (like `slice::sort`; for a total order it equals
/// `sort_unstable` too).
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The positions `0..len` in the stable order `compare` (on positions) gives: a bottom-up
/// merge sort, the one non-generic piece every caller shares.
fn stable_order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged = vec![0; len];
    let mut width = 1;
    while width < len {
        let mut start = 0;
        while start < len {
            let mid = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right, mut out) = (start, mid, start);
            while left < mid && right < end {
                // The right run goes first only when strictly smaller: ties keep their order.
                if compare(order[right], order[left]) == Ordering::Less {
                    merged[out] = order[right];
                    right += 1;
                } else {
                    merged[out] = order[left];
                    left += 1;
                }
                out += 1;
            }
            merged[out..out + mid - left].copy_from_slice(&order[left..mid]);
            out += mid - left;
            merged[out..end].copy_from_slice(&order[right..end]);
            start = end;
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Moves the element at `order[k]` to position `k`, for every `k`, by following each
/// cycle of the permutation with swaps.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        // A position already in place (or placed by an earlier cycle) points at itself.
        while order[at] != start {
            let from = order[at];
            order[at] = at;
            items.swap(at, from);
            at = from;
        }
        order[at] = at;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn sorts_by_key_exactly_as_the_standard_stable_sort(pairs in proptest::collection::vec((0u8..6, any::<u16>()), 0..80)) {
            let mut ours = pairs.clone();
            let mut std_sorted = pairs;
            sort_by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn sorts_by_a_comparison_exactly_as_the_standard_stable_sort(pairs in proptest::collection::vec((0u8..6, any::<u16>()), 0..80)) {
            let mut ours = pairs.clone();
            let mut std_sorted = pairs;
            // Ties on the residue, larger second values first: a comparison that is no key.
            let compare = |a: &(u8, u16), b: &(u8, u16)| (a.0 % 3).cmp(&(b.0 % 3)).then(b.1.cmp(&a.1));
            sort_by(&mut ours, compare);
            std_sorted.sort_by(compare);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn short_lists_sort_by_key_exactly_as_the_standard_stable_sort(pairs in proptest::collection::vec((0u8..6, any::<u16>()), 0..40)) {
            let mut ours = pairs.clone();
            let mut std_sorted = pairs;
            short_by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn sorts_like_the_standard_sort(values in proptest::collection::vec(any::<i32>(), 0..80)) {
            let mut ours = values.clone();
            let mut std_sorted = values;
            sort(&mut ours);
            std_sorted.sort();
            prop_assert_eq!(ours, std_sorted);
        }
    }

    #[test]
    fn equal_keys_keep_their_order() {
        let mut words = vec!["pear", "fig", "apple", "kiwi", "plum", "date"];
        sort_by_key(&mut words, |w| w.len());
        assert_eq!(words, ["fig", "pear", "kiwi", "plum", "date", "apple"]);
    }
}
