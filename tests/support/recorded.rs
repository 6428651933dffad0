//! Recorded `name<TAB>value` lines that tests compare against (re-recorded with
//! `FENCELAB_UPDATE_SNAPSHOT=1`).

use std::collections::BTreeMap;

pub fn read(path: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|l| l.split_once('\t')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub fn write(path: &str, now: &BTreeMap<String, String>) {
    let text: String = now.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
}

/// Each entry whose value differs from the recorded one, as a before/after text; entries
/// not recorded yet are reported on stderr, not returned.
pub fn changes(before: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> Vec<String> {
    let mut changed = Vec::new();
    for (name, value) in now {
        match before.get(name) {
            Some(old) if old != value => changed.push(format!("{name}\n  recorded: {old}\n  now:      {value}")),
            Some(_) => {}
            None => eprintln!("{name}: not recorded yet"),
        }
    }
    changed
}
